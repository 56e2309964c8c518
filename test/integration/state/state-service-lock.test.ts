import { mkdir, rm, stat, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { DogsledError } from '../../../service/core/common/errors.js';
import { LOCK_STALE_MS } from '../../../service/state/engine/lock.js';
import { type StatePaths, statePaths } from '../../../service/state/paths.js';
import {
  acquireServiceLock,
  formatLocalTime,
  readServiceState,
  type ServiceLock,
} from '../../../service/state/records/service-lock.js';
import { buildStateWorker, type HeldWorker, startWorker } from '../../helpers/state-worker-build.js';
import { tempDir } from '../../helpers/tree.js';

let bundle: string;
let bundleDir: string;
const held: ServiceLock[] = [];
const workers: HeldWorker[] = [];

beforeAll(async () => {
  bundleDir = await tempDir('dogsled-worker-');
  bundle = await buildStateWorker(bundleDir);
});

afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
});

afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release();
  for (const worker of workers.splice(0)) {
    worker.kill('SIGKILL');
    await worker.exited;
  }
});

const started = Date.UTC(2026, 10, 29, 7, 31, 2);
const me = { pid: process.pid, hostname: hostname(), started_ms: started, version: '0.1.0' };
const noLoss = { onLost: (error: DogsledError) => expect.fail(`lock lost: ${error.message}`) };

async function acquire(paths: StatePaths): Promise<ServiceLock> {
  const lock = await acquireServiceLock(paths, me, noLoss);
  held.push(lock);
  return lock;
}

/** A child `serve` that took the lock and was then killed with SIGKILL, leaving its lock dir behind. */
async function killedHolder(paths: StatePaths): Promise<number> {
  const worker = startWorker(bundle, ['serve', paths.dir]);
  expect(await worker.firstLine).toBe('acquired');
  expect((await readServiceState(paths)).holder?.pid).toBe(worker.pid);
  worker.kill('SIGKILL');
  await worker.exited;
  return worker.pid;
}

describe('service lock', () => {
  test('a second acquire while the holder lives fails naming its pid and start time', async () => {
    const paths = statePaths(await tempDir());
    await acquire(paths);
    const second = acquireServiceLock(paths, { ...me, started_ms: started + 1 }, noLoss);
    await expect(second).rejects.toThrow(
      new DogsledError(
        `serve: already running on this host (pid ${process.pid}, started ${formatLocalTime(started)})`,
      ),
    );
    await expect(second).rejects.toBeInstanceOf(DogsledError);
    await expect(second).rejects.toMatchObject({ exitCode: 2 });
  });

  test('readServiceState reports up with the holder while held and down after release', async () => {
    const paths = statePaths(await tempDir());
    expect(await readServiceState(paths)).toEqual({ state: 'down', holder: null });
    const lock = await acquire(paths);
    expect(await readServiceState(paths)).toEqual({ state: 'up', holder: me });
    await lock.release();
    await lock.release();
    expect(await readServiceState(paths)).toEqual({ state: 'down', holder: null });
    // Released means free: the next serve takes it at once.
    await acquire(paths);
  });

  test('a holder killed with SIGKILL reads as down and is taken over before its lock goes stale', async () => {
    const paths = statePaths(await tempDir());
    const dead = await killedHolder(paths);
    const lockAge = Date.now() - (await stat(`${paths.serviceLock}.lock`)).mtimeMs;
    expect(lockAge).toBeLessThan(LOCK_STALE_MS / 2);
    expect(await readServiceState(paths)).toEqual({ state: 'down', holder: null });
    const begun = performance.now();
    await acquire(paths);
    expect(performance.now() - begun).toBeLessThan(LOCK_STALE_MS / 2);
    expect(await readServiceState(paths)).toEqual({ state: 'up', holder: me });
    expect(me.pid).not.toBe(dead);
  });

  test('two concurrent takeovers of a dead holder let exactly one win', async () => {
    const paths = statePaths(await tempDir());
    await killedHolder(paths);
    const racers = Array.from({ length: 4 }, () => startWorker(bundle, ['serve', paths.dir]));
    workers.push(...racers);
    const lines = await Promise.all(racers.map((racer) => racer.firstLine));
    const winners = racers.filter((_, i) => lines[i] === 'acquired');
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    for (const line of lines.filter((line) => line !== 'acquired')) {
      expect(line).toMatch(
        new RegExp(`^refused serve: already running on this host \\(pid ${winner.pid}, started `),
      );
    }
    expect((await readServiceState(paths)).holder?.pid).toBe(winner.pid);
  });

  test('a fresh lock without a holder record counts as alive until it goes stale', async () => {
    const paths = statePaths(await tempDir());
    await mkdir(`${paths.serviceLock}.lock`);
    expect(await readServiceState(paths)).toEqual({ state: 'up', holder: null });
    await expect(acquireServiceLock(paths, me, noLoss)).rejects.toThrow(
      'serve: already running on this host (its record service.json is missing or unreadable)',
    );
    const old = new Date(Date.now() - LOCK_STALE_MS - 5_000);
    await utimes(`${paths.serviceLock}.lock`, old, old);
    expect(await readServiceState(paths)).toEqual({ state: 'down', holder: null });
    await acquire(paths);
    expect(await readServiceState(paths)).toEqual({ state: 'up', holder: me });
  });

  test('a stolen lock calls onLost instead of throwing, and release still resolves', async () => {
    const paths = statePaths(await tempDir());
    let lost: (error: DogsledError) => void = () => {};
    const report = new Promise<DogsledError>((resolve) => {
      lost = resolve;
    });
    const lock = await acquireServiceLock(paths, me, { onLost: (error) => lost(error) });
    await rm(`${paths.serviceLock}.lock`, { recursive: true });
    const error = await report;
    expect(error).toBeInstanceOf(DogsledError);
    expect(error.message).toMatch(/^serve: lost the service lock \(/);
    await lock.release();
    expect(await readServiceState(paths)).toEqual({ state: 'down', holder: null });
  }, 20_000);
});
