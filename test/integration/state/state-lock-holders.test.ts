// Who may break a lock: real holder processes, frozen with SIGSTOP or killed with SIGKILL, and
// writers whose lock was removed or taken over inside their critical section.

import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { DogsledError } from '../../../service/core/common/errors.js';
import { breakIfAbandoned, inspectLock, withLock } from '../../../service/state/engine/lock.js';
import { updateState } from '../../../service/state/engine/store.js';
import { buildStateWorker, type HeldWorker, startWorker } from '../../helpers/state-worker-build.js';
import { tempDir } from '../../helpers/tree.js';

const CounterSchema = z.looseObject({ count: z.number() });
const ctx = { now: () => 1_700_000_000_000, warn: () => {} };
const HOUR_AGO = () => new Date(Date.now() - 3_600_000);

let bundle: string;
let bundleDir: string;
const workers: HeldWorker[] = [];

beforeAll(async () => {
  bundleDir = await tempDir('dogsled-worker-');
  bundle = await buildStateWorker(bundleDir);
});

afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
});

afterEach(async () => {
  for (const worker of workers.splice(0)) {
    worker.kill('SIGCONT');
    worker.kill('SIGKILL');
    await worker.exited;
  }
});

async function holder(file: string): Promise<HeldWorker> {
  const worker = startWorker(bundle, ['hold', file]);
  workers.push(worker);
  expect(await worker.firstLine).toBe('acquired');
  return worker;
}

describe('a lock whose holder lives', () => {
  test('is never broken while its holder is stopped, however old its mtime; the waiter names the pid', async () => {
    const file = join(await tempDir(), 'placements.json');
    const frozen = await holder(file);
    frozen.kill('SIGSTOP');
    // As if the holder had been stopped for an hour: no refresh, an ancient mtime.
    await utimes(`${file}.lock`, HOUR_AGO(), HOUR_AGO());
    expect(await breakIfAbandoned(file)).toEqual({
      retry: false,
      holder: expect.objectContaining({ pid: frozen.pid }),
    });
    const waiter = withLock(file, () => 'never', { timeoutMs: 400 });
    await expect(waiter).rejects.toThrow(
      new DogsledError(
        `lock on placements.json: timed out after 400ms: pid ${frozen.pid} holds it and is still running (stopped or stuck?)`,
      ),
    );
    expect((await inspectLock(file))?.owner?.pid).toBe(frozen.pid);
  });

  test('passes at once to the next caller when its holder dies, without waiting for the stale time', async () => {
    const file = join(await tempDir(), 'queue.json');
    const dead = await holder(file);
    dead.kill('SIGKILL');
    await dead.exited;
    // The killed holder's lock dir and owner record are still there, freshly refreshed.
    expect((await inspectLock(file))?.owner?.pid).toBe(dead.pid);
    const begun = performance.now();
    expect(await withLock(file, () => 'mine', { timeoutMs: 2_000 })).toBe('mine');
    expect(performance.now() - begun).toBeLessThan(2_000);
    expect(await readdir(join(file, '..'))).toEqual([]);
  });
});

describe("a caller's deadline", () => {
  test('ends a wait behind a live holder with its own reason', async () => {
    const file = join(await tempDir(), 'placements.json');
    await holder(file);
    const reason = new DogsledError('placement exceeded its deadline of 300ms');
    const controller = new AbortController();
    const second = withLock(file, () => 'never', { signal: controller.signal, timeoutMs: 20_000 });
    controller.abort(reason);
    await expect(second).rejects.toBe(reason);
  });

  test('once aborted inside the section, the write is dropped', async () => {
    const dir = await tempDir();
    const file = join(dir, 'counter.json');
    await writeFile(file, JSON.stringify({ count: 1 }));
    const controller = new AbortController();
    const reason = new DogsledError('placement exceeded its deadline of 1s');
    const update = updateState(file, CounterSchema, { ...ctx, signal: controller.signal }, (current) => {
      controller.abort(reason);
      return { result: null, next: { count: (current?.count ?? 0) + 1 } };
    });
    await expect(update).rejects.toBe(reason);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ count: 1 });
    expect(await readdir(dir)).toEqual(['counter.json']);
  });
});

describe('a writer that lost its lock', () => {
  test('writes nothing when its lock was removed, found right before the rename', async () => {
    const dir = await tempDir();
    const file = join(dir, 'counter.json');
    await writeFile(file, JSON.stringify({ count: 1 }));
    const update = updateState(file, CounterSchema, ctx, async (current) => {
      await rm(`${file}.lock`, { recursive: true });
      return { result: null, next: { count: (current?.count ?? 0) + 1 } };
    });
    await expect(update).rejects.toThrow(
      new DogsledError('lock on counter.json: lost while held (the lock was removed)'),
    );
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ count: 1 });
    expect(await readdir(dir)).toEqual(['counter.json']);
  });

  test('writes nothing when another process took its lock over, and leaves that lock alone', async () => {
    const dir = await tempDir();
    const file = join(dir, 'counter.json');
    await writeFile(file, JSON.stringify({ count: 1 }));
    let taker: HeldWorker | undefined;
    const update = updateState(file, CounterSchema, ctx, async (current) => {
      await rm(`${file}.lock`, { recursive: true });
      taker = await holder(file);
      return { result: null, next: { count: (current?.count ?? 0) + 1 } };
    });
    await expect(update).rejects.toThrow(
      /^lock on counter\.json: lost while held \(the lock was taken over by pid \d+\)$/,
    );
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ count: 1 });
    // Our release did not remove the new holder's lock.
    expect((await inspectLock(file))?.owner?.pid).toBe(taker?.pid);
    expect((await readdir(dir)).sort()).toEqual(['counter.json', 'counter.json.lock']);
  });
});

describe('a lock without an owner record (a crash between mkdir and the record)', () => {
  test('is kept while fresh and broken once unrefreshed for the stale time', async () => {
    const file = join(await tempDir(), 'items.json');
    await withLock(file, async () => {
      await rm(join(`${file}.lock`, 'owner'));
      expect((await inspectLock(file))?.owner).toBeNull();
      expect((await breakIfAbandoned(file)).retry).toBe(false);
      await utimes(`${file}.lock`, HOUR_AGO(), HOUR_AGO());
      expect(await breakIfAbandoned(file)).toEqual({ retry: true, holder: null });
      expect(await inspectLock(file)).toBeUndefined();
    });
  });

  test('an owner record that is not JSON counts as none', async () => {
    const file = join(await tempDir(), 'items.json');
    const lockDir = `${file}.lock`;
    await mkdir(lockDir);
    await writeFile(join(lockDir, 'owner'), '\u001b[2J{not json');
    expect((await inspectLock(file))?.owner).toBeNull();
    expect((await breakIfAbandoned(file)).retry).toBe(false);
    await utimes(lockDir, HOUR_AGO(), HOUR_AGO());
    expect(await withLock(file, () => 'taken', { timeoutMs: 2_000 })).toBe('taken');
  });
});
