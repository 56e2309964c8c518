import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most test time is spent waiting on real processes (services, sshd, tmux, fake Herdr), so two
    // files at once pay off even on a 2-core box, where vitest's default (cores - 1) runs one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
