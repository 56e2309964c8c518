// updateNow (service/state/engine/update-now.ts): the lean hook's one-try locked write. It must take
// lock.ts's lock as lock.ts does, write a whole record or nothing, and leave every case it doubts to
// the full updateState untouched: a held lock, a file that is not a regular file or not a record, a
// lock lost while it wrote, a missing state dir. Across processes it is held to updateState in
// state-lock-concurrency.test.ts.

import { spawnSync } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { updateNow } from '../../../service/state/engine/update-now.js';
import { tempDir } from '../../helpers/tree.js';

const CounterSchema = z.looseObject({ count: z.int().check(z.nonnegative()) });
type Counter = z.output<typeof CounterSchema>;

const OPTIONS = { mode: 0o600, durable: true };
const increment = (current: Counter | undefined) => ({
  result: current?.count ?? null,
  next: { ...current, count: (current?.count ?? 0) + 1 },
});

async function counterIn(): Promise<{ dir: string; file: string }> {
  const dir = await tempDir();
  return { dir, file: join(dir, 'counter.json') };
}

const knobs = { DOGSLED_TEST: process.env.DOGSLED_TEST };
afterEach(() => {
  delete process.env.DOGSLED_TEST_LOCK_HOLD_FILE;
  if (knobs.DOGSLED_TEST === undefined) delete process.env.DOGSLED_TEST;
  else process.env.DOGSLED_TEST = knobs.DOGSLED_TEST;
});

describe('updateNow', () => {
  test('writes the record whole, exactly 0600, and leaves no lock or temp file', async () => {
    const { dir, file } = await counterIn();
    expect(updateNow(file, CounterSchema, OPTIONS, increment)).toEqual({ result: null });
    expect(updateNow(file, CounterSchema, { ...OPTIONS, durable: false }, increment)).toEqual({ result: 1 });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ count: 2 });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['counter.json']);
  });

  test('with a backup: the file and its backup hold the same whole text, no temp left', async () => {
    const { dir, file } = await counterIn();
    await writeFile(file, '{"count":3}');
    const options = { ...OPTIONS, backup: `${file}.prev` };
    expect(updateNow(file, CounterSchema, options, increment)).toEqual({ result: 3 });
    expect(updateNow(file, CounterSchema, options, increment)).toEqual({ result: 4 });
    const text = await readFile(file, 'utf8');
    expect(JSON.parse(text)).toEqual({ count: 5 });
    expect(await readFile(`${file}.prev`, 'utf8')).toBe(text);
    for (const name of ['counter.json', 'counter.json.prev']) {
      expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
    }
    expect((await readdir(dir)).sort()).toEqual(['counter.json', 'counter.json.prev']);
  });

  test('a backup that cannot be replaced (a directory): nothing written, no temp left, the lock released', async () => {
    const { dir, file } = await counterIn();
    await writeFile(file, '{"count":3}');
    await mkdir(`${file}.prev`);
    await writeFile(join(`${file}.prev`, 'inside'), 'x');
    expect(updateNow(file, CounterSchema, { ...OPTIONS, backup: `${file}.prev` }, increment)).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe('{"count":3}');
    expect((await readdir(dir)).sort()).toEqual(['counter.json', 'counter.json.prev']);
  });

  test('keeps fields it does not know (a newer dogsled wrote them)', async () => {
    const { file } = await counterIn();
    await writeFile(file, JSON.stringify({ count: 4, later: { field: true } }));
    updateNow(file, CounterSchema, OPTIONS, increment);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ count: 5, later: { field: true } });
  });

  test('an update that changes nothing writes nothing and releases the lock', async () => {
    const { dir, file } = await counterIn();
    await writeFile(file, '{"count":3}');
    const before = await stat(file);
    expect(updateNow(file, CounterSchema, OPTIONS, (current) => ({ result: current?.count }))).toEqual({
      result: 3,
    });
    expect((await stat(file)).ino).toBe(before.ino);
    expect(await readdir(dir)).toEqual(['counter.json']);
  });

  test('a lock someone holds: declined at once, their lock and the file untouched', async () => {
    const { dir, file } = await counterIn();
    await writeFile(file, '{"count":3}');
    await mkdir(`${file}.lock`);
    const record = JSON.stringify({
      pid: process.pid,
      start: null,
      hostname: 'h',
      token: 'theirs',
      since_ms: 1,
    });
    await writeFile(join(`${file}.lock`, 'owner'), record);
    let called = false;
    const answer = updateNow(file, CounterSchema, OPTIONS, (current) => {
      called = true;
      return increment(current);
    });
    expect({ answer, called }).toEqual({ answer: undefined, called: false });
    expect(await readFile(file, 'utf8')).toBe('{"count":3}');
    expect(await readFile(join(`${file}.lock`, 'owner'), 'utf8')).toBe(record);
    expect((await readdir(dir)).sort()).toEqual(['counter.json', 'counter.json.lock']);
  });

  const doubted: Array<[string, (file: string) => Promise<void>]> = [
    ['a file that is not JSON', (file) => writeFile(file, '{"count":')],
    ['a record its check refuses', (file) => writeFile(file, '{"count":-1}')],
    ['a directory', (file) => mkdir(file)],
    [
      'a symlink',
      async (file) => {
        await writeFile(`${file}.real`, '{"count":1}');
        await symlink(`${file}.real`, file);
      },
    ],
    [
      'a FIFO (never blocks)',
      async (file) => {
        expect(spawnSync('mkfifo', [file]).status).toBe(0);
      },
    ],
  ];
  for (const [what, spoil] of doubted) {
    test(`${what}: declined for the full reader, nothing written, the lock released`, async () => {
      const { dir, file } = await counterIn();
      await spoil(file);
      const before = await lstat(file);
      const names = (await readdir(dir)).sort();
      expect(updateNow(file, CounterSchema, OPTIONS, increment)).toBeUndefined();
      expect((await lstat(file)).ino).toBe(before.ino);
      expect((await readdir(dir)).sort()).toEqual(names);
    });
  }

  test('a next record its check refuses (a bug): nothing written', async () => {
    const { dir, file } = await counterIn();
    await writeFile(file, '{"count":3}');
    const answer = updateNow(file, CounterSchema, OPTIONS, () => ({ result: 1, next: { count: -5 } }));
    expect(answer).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe('{"count":3}');
    expect(await readdir(dir)).toEqual(['counter.json']);
  });

  test('a lock taken over while it wrote (broken as abandoned): nothing written, the new lock kept', async () => {
    const { dir, file } = await counterIn();
    await writeFile(file, '{"count":3}');
    const theirs = JSON.stringify({ pid: 1, start: null, hostname: 'h', token: 'breaker', since_ms: 1 });
    const answer = updateNow(file, CounterSchema, OPTIONS, (current) => {
      // What a breaker does between our read and our rename: its own record in the lock dir.
      spawnSync('sh', ['-c', 'printf %s "$1" > "$2"', 'sh', theirs, join(`${file}.lock`, 'owner')]);
      return increment(current);
    });
    expect(answer).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe('{"count":3}');
    expect(await readFile(join(`${file}.lock`, 'owner'), 'utf8')).toBe(theirs);
    expect((await readdir(dir)).sort()).toEqual(['counter.json', 'counter.json.lock']);
  });

  test('no state dir: declined (the full writer makes or words it)', async () => {
    const { dir } = await counterIn();
    expect(updateNow(join(dir, 'absent', 'counter.json'), CounterSchema, OPTIONS, increment)).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });

  test('a test pausing writers inside this file lock is left to the full path', async () => {
    const { dir, file } = await counterIn();
    process.env.DOGSLED_TEST = '1';
    process.env.DOGSLED_TEST_LOCK_HOLD_FILE = 'counter.json';
    expect(updateNow(file, CounterSchema, OPTIONS, increment)).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });
});
