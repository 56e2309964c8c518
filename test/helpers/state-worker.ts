// A child process for the state-layer concurrency tests, bundled by state-worker-build.ts so plain
// `node` can run the real store and service-lock modules. Commands:
//   increment FILE TIMES   TIMES read-modify-write increments of { count } under updateState
//   increment-now FILE TIMES   the same, each tried at once with updateNow and, where it declines,
//                          under updateState (as the lean hook's sweep request does)
//   serve DIR              take the service lock, print "acquired" or "refused <message>", hold until killed
//   hold FILE              take FILE's lock (withLock), print "acquired", hold until killed

import { hostname } from 'node:os';
import * as z from 'zod/mini';
import { withLock } from '../../service/state/engine/lock.js';
import { updateState } from '../../service/state/engine/store.js';
import { updateNow } from '../../service/state/engine/update-now.js';
import { statePaths } from '../../service/state/paths.js';
import { acquireServiceLock } from '../../service/state/records/service-lock.js';

const CounterSchema = z.looseObject({ count: z.int().check(z.nonnegative()) });

const ctx = { now: Date.now, warn: (line: string) => process.stderr.write(`${line}\n`) };

async function increment(file: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await updateState(file, CounterSchema, ctx, (current) => ({
      result: undefined,
      next: { ...current, count: (current?.count ?? 0) + 1 },
    }));
  }
}

async function incrementNow(file: string, times: number): Promise<void> {
  const next = (current: { count: number } | undefined) => ({
    result: undefined,
    next: { ...current, count: (current?.count ?? 0) + 1 },
  });
  for (let i = 0; i < times; i++) {
    if (updateNow(file, CounterSchema, { mode: 0o600, durable: true }, next) === undefined) {
      await updateState(file, CounterSchema, ctx, next);
    }
  }
}

async function serve(dir: string): Promise<void> {
  const holder = { pid: process.pid, hostname: hostname(), started_ms: Date.now(), version: 'test' };
  try {
    await acquireServiceLock(statePaths(dir), holder, {
      onLost: (error) => {
        process.stderr.write(`lost ${error.message}\n`);
        process.exit(3);
      },
    });
  } catch (error) {
    process.stdout.write(`refused ${(error as Error).message}\n`);
    return;
  }
  process.stdout.write('acquired\n');
  // Hold the lock (proper-lockfile's refresh timer is unref'd) until the test kills us.
  setInterval(() => {}, 60_000);
}

async function hold(file: string): Promise<void> {
  await withLock(file, async () => {
    process.stdout.write('acquired\n');
    // proper-lockfile's refresh timer is unref'd: a timer of our own keeps the process holding it.
    await new Promise(() => setInterval(() => {}, 60_000));
  });
}

const [command, target, count] = process.argv.slice(2);
if (command === 'increment' && target) await increment(target, Number(count));
else if (command === 'increment-now' && target) await incrementNow(target, Number(count));
else if (command === 'serve' && target) await serve(target);
else if (command === 'hold' && target) await hold(target);
else throw new Error(`state-worker: unknown command ${process.argv.slice(2).join(' ')}`);
