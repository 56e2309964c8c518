// readState keeps the record of a file that has not changed (read-memo.ts) and reads the file again
// whenever the one at its path is another or was changed, however alike it looks: replaced by
// rename with the same size and mtime, rewritten in place with both put back, a symlink turned to
// another file, swapped for a FIFO or a directory, removed. Real files throughout.

import { execFileSync } from 'node:child_process';
import { closeSync, fstatSync, openSync } from 'node:fs';
import { mkdir, open, rename, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  keepRecord,
  keepUnchangedRecords,
  keptRecord,
  SETTLED_MS,
} from '../../../service/state/engine/read-memo.js';
import { readState } from '../../../service/state/engine/store.js';
import { PlacementsSchema } from '../../../service/state/schemas/host-schemas.js';
import { tempDir } from '../../helpers/tree.js';

const ctx = { now: Date.now, warn: (line: string) => expect.fail(`unexpected warning: ${line}`) };
const MTIME = new Date('2026-01-01T00:00:00.000Z');
const SIZE = 300;

function text(n: number): string {
  const reservations = Array.from({ length: n }, (_, i) => ({
    id: `r_memo${i}`,
    created_ms: 1,
    expires_ms: 2,
    owner: null,
  }));
  const json = JSON.stringify({ version: 1, reservations });
  return `${json}${' '.repeat(SIZE - json.length - 1)}\n`;
}

const count = async (file: string) => (await readState(file, PlacementsSchema, ctx))?.reservations.length;
const settle = () => new Promise((r) => setTimeout(r, SETTLED_MS + 200));

/** `n` reservations written beside `file` and renamed over it: a new inode, same size and mtime. */
async function replace(file: string, n: number): Promise<void> {
  await writeFile(`${file}.next`, text(n));
  await utimes(`${file}.next`, MTIME, MTIME);
  await rename(`${file}.next`, file);
}

/** A file whose record readState has read since it settled, and so keeps. */
async function kept(n: number): Promise<string> {
  const file = join(await tempDir(), 'placements.json');
  await replace(file, n);
  await settle();
  expect(await count(file)).toBe(n);
  expect(keptRecord(file, PlacementsSchema)).toBeDefined();
  return file;
}

beforeEach(() => keepUnchangedRecords());
afterEach(() => keepUnchangedRecords(false));

describe('the memo of unchanged state files', () => {
  test('keeps a settled file, and gives each reader its own copy', async () => {
    const file = await kept(2);
    const first = await readState(file, PlacementsSchema, ctx);
    first?.reservations.pop();
    expect(await count(file)).toBe(2);
  });

  test('never keeps a file changed within SETTLED_MS of the read: two changes in one stamp look alike', async () => {
    const file = join(await tempDir(), 'placements.json');
    await replace(file, 1);
    expect(await count(file)).toBe(1);
    expect(keptRecord(file, PlacementsSchema)).toBeUndefined();
    const fd = openSync(file, 'r');
    const identity = fstatSync(fd, { bigint: true });
    closeSync(fd);
    keepRecord(file, PlacementsSchema, identity, { version: 1, reservations: [] }, Date.now());
    expect(keptRecord(file, PlacementsSchema)).toBeUndefined();
    keepRecord(file, PlacementsSchema, identity, { version: 1, reservations: [] }, Date.now() + SETTLED_MS);
    expect(keptRecord(file, PlacementsSchema)).toEqual({ value: { version: 1, reservations: [] } });
  });

  test('a file replaced by rename with the same size and mtime is read again', async () => {
    const file = await kept(1);
    await replace(file, 2);
    expect(await count(file)).toBe(2);
  });

  test('a file rewritten in place with the same size and mtime is read again (its ctime moved)', async () => {
    const file = await kept(1);
    const handle = await open(file, 'r+');
    await handle.write(text(3), 0);
    await handle.close();
    await utimes(file, MTIME, MTIME);
    expect(await count(file)).toBe(3);
  });

  test('a symlink turned to another file of the same size and mtime is read again', async () => {
    const dir = await tempDir();
    const file = join(dir, 'placements.json');
    for (const [name, n] of [
      ['a.json', 1],
      ['b.json', 2],
    ] as const) {
      await writeFile(join(dir, name), text(n));
      await utimes(join(dir, name), MTIME, MTIME);
    }
    await symlink(join(dir, 'a.json'), file);
    await settle();
    expect(await count(file)).toBe(1);
    expect(keptRecord(file, PlacementsSchema)).toBeDefined();
    await symlink(join(dir, 'b.json'), `${file}.link`);
    await rename(`${file}.link`, file);
    expect(await count(file)).toBe(2);
  });

  test('a FIFO renamed over a kept file is refused at once, without blocking', async () => {
    const file = await kept(1);
    execFileSync('mkfifo', [`${file}.fifo`]);
    await rename(`${file}.fifo`, file);
    await expect(readState(file, PlacementsSchema, ctx)).rejects.toThrow(/it is a FIFO, not a regular file/);
  });

  test('a directory in place of a kept file is refused', async () => {
    const file = await kept(1);
    await rm(file);
    await mkdir(file);
    await expect(readState(file, PlacementsSchema, ctx)).rejects.toThrow(
      /it is a directory, not a regular file/,
    );
  });

  test('a kept file removed reads as missing', async () => {
    const file = await kept(1);
    await unlink(file);
    expect(await readState(file, PlacementsSchema, ctx)).toBeUndefined();
  });

  test('off (every process but the service): nothing is kept', async () => {
    keepUnchangedRecords(false);
    const file = join(await tempDir(), 'placements.json');
    await replace(file, 1);
    await settle();
    expect(await count(file)).toBe(1);
    expect(keptRecord(file, PlacementsSchema)).toBeUndefined();
  });

  test('a file where a directory of the path belongs is an error naming it, not a missing file', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'state'), 'a file');
    await expect(readState(join(dir, 'state', 'placements.json'), PlacementsSchema, ctx)).rejects.toThrow(
      /cannot read .*placements\.json: .*ENOTDIR/,
    );
  });
});
