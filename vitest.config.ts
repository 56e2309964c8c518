import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SLOW_FILES } from './test/slow-files.js';

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Most test time is spent waiting on real processes (services, sshd, tmux, fake Herdr), so two
    // files at once pay off even on a 2-core box, where vitest's default (cores - 1) runs one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // `npm test` runs both; `npm run test:fast` (`--project fast`) leaves out the slow files.
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: SLOW_FILES,
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: SLOW_FILES,
          // A real service, SSH peers, whole agent lives: each test waits on several processes. A
          // test that needs longer than this is one to split or to make wait for its event.
          testTimeout: 120_000,
          // Peer setups (users, sshd, network namespaces, a fleet's services) run in beforeAll.
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
