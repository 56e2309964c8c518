import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { FlakyReport } from './test/helpers/flaky-reporter.js';
import { LongestFirst } from './test/helpers/sequencer.js';
import { SLOW_FILES } from './test/slow-files.js';

// A machine that sets NODE_EXTRA_CA_CERTS makes every Node process read and parse a CA bundle as it
// starts (some 80 ms of CPU here). The suite starts thousands (each CLI call, service, fake Herdr and
// fake agent), none of which verifies a real certificate (the quota tests name their own CA), so the
// workers and everything they start go without it: a quarter of the suite's CPU on such a machine.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    // Removes each file's temp dirs after it (test/helpers/tree.ts), failing the file if it cannot;
    // the global setup's teardown removes and lists any made again after their file ended.
    setupFiles: ['test/helpers/temp-cleanup.ts'],
    pool: 'forks',
    // Most test time is spent waiting on real processes (services, sshd, tmux, fake Herdr, agents'
    // timers): a file uses a fifth of a core on average, so on a 2-core box four files at once keep
    // the cores busy where two left them mostly idle.
    maxWorkers: Math.max(4, availableParallelism()),
    // Longest first, across projects, so no long file runs on alone at the end.
    sequence: { sequencer: LongestFirst },
    // The tests that passed only on a second try are listed at the end of the run (see `retry`).
    reporters: ['default', new FlakyReport()],
    // `npm test` runs them all; `npm run test:fast` the unit project alone.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Pure rules and single modules, none of which sets process state: one module graph per
          // worker instead of one per file halves the project's time, most of it spent importing.
          isolate: false,
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', ...SLOW_FILES],
          testTimeout: 20_000,
          hookTimeout: 30_000,
          // Real processes on a machine other tests load: a failure is tried once more, and a pass
          // on that try is listed as flaky at the end of the run (test/helpers/flaky-reporter.ts).
          retry: 1,
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
          retry: 1,
        },
      },
    ],
  },
});
