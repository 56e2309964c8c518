// A holder frozen (SIGSTOP) inside a lock stops refreshing it: the lock's age is the state a test of
// "frozen past the stale window" waits for, rather than a fixed sleep.

import { basename } from 'node:path';
import { inspectLock } from '../../service/state/engine/lock.js';
import { waitFor } from './wait.js';

/** Waits until `file`'s lock has gone unrefreshed for longer than `ms`. */
export async function lockUnrefreshedFor(file: string, ms: number): Promise<void> {
  await waitFor(
    `${basename(file)}.lock unrefreshed for ${ms} ms`,
    async () => {
      const lock = await inspectLock(file);
      return lock !== undefined && Date.now() - lock.mtimeMs > ms;
    },
    { timeoutMs: ms + 15_000 },
  );
}
