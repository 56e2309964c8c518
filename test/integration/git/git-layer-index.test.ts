// The index file parser against indexes Git itself wrote: every version, both object formats, flags
// and gitlinks, each answer checked against `git ls-files -v -s`. Anything it cannot vouch for (a
// split index, a torn or altered file, a FIFO) answers null so the caller asks Git instead.
import { execFile } from 'node:child_process';
import { readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { hiddenEdits } from '../../../service/git/hidden-content.js';
import {
  INDEX_MAX_BYTES,
  type IndexNote,
  parseIndexNotes,
  parseLsFiles,
  readIndexNotes,
} from '../../../service/git/index-file.js';
import { gitTestEnv } from '../../helpers/git-scenarios.js';
import { tempDir } from '../../helpers/tree.js';

const run = promisify(execFile);
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd, env: gitTestEnv() })).stdout;
}

/** A repository with flagged files, a long name, a gitlink and an index of `version`. */
async function repository(version: number, format: 'sha1' | 'sha256' = 'sha1'): Promise<string> {
  const dir = await tempDir('dogsled-index-');
  dirs.push(dir);
  await git(dir, 'init', '-q', '-b', 'main', `--object-format=${format}`);
  const long = `${'d'.repeat(120)}/${'f'.repeat(200)}.txt`;
  await run('mkdir', ['-p', join(dir, 'd'.repeat(120)), join(dir, 'dir')]);
  for (const name of ['a.txt', 'b.txt', 'dir/c.txt', 'dir/d.txt', long])
    await writeFile(join(dir, name), name);
  await git(dir, 'add', '.');
  await git(dir, 'commit', '-qm', 'files');
  const head = (await git(dir, 'rev-parse', 'HEAD')).trim();
  await git(dir, 'update-index', '--add', '--cacheinfo', `160000,${head},sub`);
  await git(dir, 'update-index', '--assume-unchanged', 'a.txt', long);
  // Version 2 has no room for skip-worktree (Git would write version 3).
  if (version > 2) await git(dir, 'update-index', '--skip-worktree', 'dir/c.txt');
  await git(dir, 'update-index', '--index-version', String(version));
  const written = (await readFile(join(dir, '.git', 'index'))).readUInt32BE(4);
  if (written !== version) throw new Error(`git wrote a version ${written} index, not ${version}`);
  return dir;
}

async function fromGit(dir: string): Promise<IndexNote[]> {
  return parseLsFiles(await git(dir, 'ls-files', '-v', '-s', '-z'));
}

const withoutStat = (notes: IndexNote[] | null) => notes?.map((note) => ({ ...note, stat: null })) ?? null;

describe('index notes', () => {
  it.each([2, 3, 4])('reads a version %i index exactly as git ls-files does', async (version) => {
    const dir = await repository(version);
    const notes = await readIndexNotes(join(dir, '.git'));
    expect(withoutStat(notes)).toEqual(await fromGit(dir));
    expect(notes?.map((note) => [note.path.slice(0, 5), note.assumeUnchanged, note.skipWorktree])).toEqual([
      ['a.txt', true, false],
      ['ddddd', true, false],
      ...(version > 2 ? [['dir/c', false, true]] : []),
      ['sub', false, false],
    ]);
  });

  it('reads a sha256 repository', async () => {
    const dir = await repository(4, 'sha256');
    const notes = await readIndexNotes(join(dir, '.git'));
    expect(notes?.[0]?.oid).toHaveLength(64);
    expect(withoutStat(notes)).toEqual(await fromGit(dir));
  });

  it('keeps stat data only for entries recorded before the index was written', async () => {
    const dir = await repository(2);
    const data = await readFile(join(dir, '.git', 'index'));
    expect(parseIndexNotes(data, { s: 2 ** 32 - 1, ns: 0 })?.[0]?.stat).not.toBeNull();
    expect(parseIndexNotes(data, { s: 0, ns: 0 })?.every((note) => note.stat === null)).toBe(true);
  });

  it('vouches for nothing it cannot read whole: torn, altered, split, or not a file', async () => {
    const dir = await repository(3);
    const file = join(dir, '.git', 'index');
    const data = await readFile(file);
    const now = { s: 0, ns: 0 };
    expect(parseIndexNotes(data.subarray(0, data.length - 1), now)).toBeNull();
    const altered = Buffer.from(data);
    altered[100] = (altered[100] ?? 0) ^ 1;
    expect(parseIndexNotes(altered, now)).toBeNull();
    expect(parseIndexNotes(Buffer.from('not an index at all, not at all'), now)).toBeNull();
    await git(dir, 'update-index', '--split-index');
    expect(await readIndexNotes(join(dir, '.git'))).toBeNull();
    await rm(file);
    expect(await readIndexNotes(join(dir, '.git'))).toEqual([]);
    await run('mkfifo', [file]);
    expect(await readIndexNotes(join(dir, '.git'))).toBeNull();
    // Past the cap (sparse: it costs the test nothing) it is not read at all.
    await rm(file);
    await writeFile(file, '');
    await truncate(file, INDEX_MAX_BYTES + 1);
    expect(await readIndexNotes(join(dir, '.git'))).toBeNull();
  });
});

describe('hidden edits on odd working files', () => {
  it('a FIFO, a directory or a file in place of a symlink is an edit, and nothing blocks', async () => {
    const dir = await tempDir('dogsled-hidden-');
    dirs.push(dir);
    await git(dir, 'init', '-q', '-b', 'main');
    await writeFile(join(dir, 'pipe'), 'p');
    await writeFile(join(dir, 'folder'), 'f');
    await writeFile(join(dir, 'same'), 's');
    await run('ln', ['-s', 'same', join(dir, 'link')]);
    await writeFile(join(dir, 'new\nline'), 'n');
    await git(dir, 'add', '.');
    await git(dir, 'commit', '-qm', 'files');
    await git(dir, 'update-index', '--assume-unchanged', 'pipe', 'folder', 'same', 'link', 'new\nline');
    await rm(join(dir, 'pipe'));
    await run('mkfifo', [join(dir, 'pipe')]);
    await rm(join(dir, 'folder'));
    await run('mkdir', [join(dir, 'folder')]);
    await rm(join(dir, 'link'));
    await writeFile(join(dir, 'link'), 'same');
    // A name git hash-object cannot be asked about (one path per line) counts as changed.
    await writeFile(join(dir, 'new\nline'), 'N');
    const notes = await readIndexNotes(join(dir, '.git'));
    if (notes === null) throw new Error('index not read');
    expect(await hiddenEdits(dir, notes, { env: process.env })).toEqual([
      { path: 'folder', why: 'assume-unchanged' },
      { path: 'link', why: 'assume-unchanged' },
      { path: 'new\nline', why: 'assume-unchanged' },
      { path: 'pipe', why: 'assume-unchanged' },
    ]);
  });
});
