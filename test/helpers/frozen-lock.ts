// A holder frozen (SIGSTOP) inside a lock stops refreshing it: the lock's age is the state a test of
// "frozen past the stale window" waits for, rather than a fixed sleep.

import { basename } from 'node:path';
import { inspectLock } from '../../service/state/engine/lock.js';
import { frozen, statFields } from './frozen-procs.js';
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

/**
 * The env that makes a command stop itself (SIGSTOP) inside `file`'s lock, between its read and its
 * write; after its SIGCONT it holds the lock `holdMs` more. A test stops nothing from outside, so a
 * slow machine cannot let the pause end before the stop.
 */
export function stopInLock(file: string, holdMs = 1): NodeJS.ProcessEnv {
  return {
    DOGSLED_TEST_LOCK_HOLD_FILE: basename(file),
    DOGSLED_TEST_LOCK_HOLD_MS: String(holdMs),
    DOGSLED_TEST_LOCK_HOLD_STOP: '1',
  };
}

/** Waits until process `pid` is stopped (state T in /proc): frozen where `stopInLock` put it. */
export async function stoppedItself(pid: number | undefined, timeoutMs = 30_000): Promise<void> {
  if (pid === undefined) throw new Error('no pid to wait for');
  await waitFor(
    `process ${pid} to stop itself inside its lock`,
    async () => {
      const fields = await statFields(pid);
      if (fields[0] !== 'T') return undefined;
      // Field 22 of the whole line, the start time: the 20th past the name.
      frozen.set(pid, fields[19] ?? '');
      return true;
    },
    { timeoutMs },
  );
}
