import { mkdir, readdir, rm, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { readState } from '../../../service/state/engine/store.js';
import { buildStateWorker, runWorker } from '../../helpers/state-worker-build.js';
import { tempDir } from '../../helpers/tree.js';

// The worker writes this shape (test/helpers/state-worker.ts).
const CounterSchema = z.looseObject({ count: z.int().check(z.nonnegative()) });

const PROCESSES = 16;
const INCREMENTS = 10;

let bundle: string;
let bundleDir: string;

beforeAll(async () => {
  bundleDir = await tempDir('dogsled-worker-');
  bundle = await buildStateWorker(bundleDir);
});

afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
});

describe('updateState across processes', () => {
  test('16 processes incrementing 10 times each under updateState end at exactly 160', async () => {
    const dir = await tempDir();
    const file = join(dir, 'counter.json');
    const runs = await Promise.all(
      Array.from({ length: PROCESSES }, () => runWorker(bundle, ['increment', file, String(INCREMENTS)])),
    );
    for (const run of runs) expect(run).toMatchObject({ code: 0, signal: null, stderr: '' });
    const warnings: string[] = [];
    const counter = await readState(file, CounterSchema, {
      now: Date.now,
      warn: (line) => warnings.push(line),
    });
    expect(counter).toEqual({ count: PROCESSES * INCREMENTS });
    expect(warnings).toEqual([]);
    // No quarantine, no temp file and no lock dir left behind.
    expect(await readdir(dir)).toEqual(['counter.json']);
  }, 120_000);

  test('8 processes taking the lock at once (updateNow) and 8 waiting for it (updateState) end at exactly 160', async () => {
    const dir = await tempDir();
    const file = join(dir, 'counter.json');
    const runs = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) =>
        runWorker(bundle, [i % 2 === 0 ? 'increment-now' : 'increment', file, String(INCREMENTS)]),
      ),
    );
    for (const run of runs) expect(run).toMatchObject({ code: 0, signal: null, stderr: '' });
    const counter = await readState(file, CounterSchema, { now: Date.now, warn: () => {} });
    expect(counter).toEqual({ count: PROCESSES * INCREMENTS });
    expect(await readdir(dir)).toEqual(['counter.json']);
  }, 120_000);

  test('a stale lock left by a crash is broken once, and 16 racing processes still end at exactly 160', async () => {
    const dir = await tempDir();
    const file = join(dir, 'counter.json');
    // What a holder killed mid-update leaves: the lock dir, unrefreshed for longer than the stale time.
    await mkdir(`${file}.lock`);
    const longAgo = new Date(Date.now() - 20_000);
    await utimes(`${file}.lock`, longAgo, longAgo);
    const runs = await Promise.all(
      Array.from({ length: PROCESSES }, () => runWorker(bundle, ['increment', file, String(INCREMENTS)])),
    );
    for (const run of runs) expect(run).toMatchObject({ code: 0, signal: null, stderr: '' });
    const counter = await readState(file, CounterSchema, { now: Date.now, warn: () => {} });
    expect(counter).toEqual({ count: PROCESSES * INCREMENTS });
    expect(await readdir(dir)).toEqual(['counter.json']);
  }, 120_000);
});
