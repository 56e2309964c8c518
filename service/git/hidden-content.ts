// What a checkout holds that `git status` does not print. Tracked files marked assume-unchanged or
// skip-worktree are compared with the index here (an absent one loses nothing: a sparse checkout
// leaves them out, and the index entry equals HEAD unless status shows a staged change). Checked-out
// submodules, repositories nested in ignored directories and refs private to a linked worktree are
// other checkouts' content that removing this one would destroy (or that `git worktree remove`
// refuses). Costs no git process unless a flagged file's bytes differ from its index blob.

import { createHash } from 'node:crypto';
import { createReadStream, type Dirent, lstatSync, readdirSync } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { HiddenEdit, InnerCheckout } from '../core/cleanup/loss-types.js';
import { mapLimited } from '../probe/map-limited.js';
import { pathPresent } from './git-dir.js';
import type { IndexNote } from './index-file.js';
import { type GitIO, gitIO, runGit, succeeded } from './run-git.js';

/** Stats and reads in flight at once. */
const CONCURRENCY = 16;

/** Flagged tracked files whose working copy is not what the index holds. */
export async function hiddenEdits(
  root: string,
  notes: readonly IndexNote[],
  io: GitIO,
): Promise<HiddenEdit[]> {
  const flagged = notes.filter(
    (note) => (note.assumeUnchanged || note.skipWorktree) && note.mode !== '160000',
  );
  const verdicts = await mapLimited(flagged, CONCURRENCY, (note) => compare(root, note));
  const edits: HiddenEdit[] = [];
  const unsure: IndexNote[] = [];
  flagged.forEach((note, index) => {
    const verdict = verdicts[index];
    if (verdict === 'changed') edits.push(edit(note));
    else if (verdict === 'unsure') unsure.push(note);
  });
  // Bytes that differ may still be the same blob once Git's filters (eol, clean) have run.
  for (const note of await differAfterFilters(root, unsure, io)) edits.push(edit(note));
  return edits.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const edit = (note: IndexNote): HiddenEdit => ({
  path: note.path,
  why: note.skipWorktree ? 'skip-worktree' : 'assume-unchanged',
});

type Comparison = 'same' | 'changed' | 'unsure';

async function compare(root: string, note: IndexNote): Promise<Comparison> {
  const file = join(root, note.path);
  let info: Awaited<ReturnType<typeof lstat>> & { mtimeNs: bigint };
  try {
    info = await lstat(file, { bigint: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Not there: nothing of it can be lost. Anything else cannot be checked, so it counts.
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'same' : 'changed';
  }
  if (note.mode === '120000') {
    if (!info.isSymbolicLink()) return 'changed';
    const target = await readlink(file, { encoding: 'buffer' }).catch(() => null);
    return target !== null && blobOid(target, note.oid) === note.oid ? 'same' : 'changed';
  }
  if (!info.isFile()) return 'changed';
  // The executable bit is tracked content, whatever core.fileMode says.
  if ((note.mode === '100755') !== ((info.mode & 0o100n) !== 0n)) return 'changed';
  if (note.stat !== null && statMatches(note.stat, info)) return 'same';
  try {
    return (await fileOid(file, info.size, note.oid)) === note.oid ? 'same' : 'unsure';
  } catch {
    return 'changed';
  }
}

/** Git's own shortcut: the stat data it recorded when the file matched the index is unchanged. */
function statMatches(
  stat: NonNullable<IndexNote['stat']>,
  info: { size: bigint; ino: bigint; mtimeNs: bigint; ctimeNs: bigint },
): boolean {
  const low = (value: bigint) => Number(value & 0xffffffffn);
  const seconds = (ns: bigint) => low(ns / 1_000_000_000n);
  const nanos = (ns: bigint) => Number(ns % 1_000_000_000n);
  return (
    stat.size === low(info.size) &&
    stat.ino === low(info.ino) &&
    stat.mtimeS === seconds(info.mtimeNs) &&
    stat.mtimeNs === nanos(info.mtimeNs) &&
    stat.ctimeS === seconds(info.ctimeNs) &&
    stat.ctimeNs === nanos(info.ctimeNs)
  );
}

/** The blob id of `content` in the repository's object format (told by the length of `like`). */
function blobOid(content: Buffer, like: string): string {
  return createHash(like.length === 64 ? 'sha256' : 'sha1')
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest('hex');
}

function fileOid(file: string, size: bigint, like: string): Promise<string> {
  const hash = createHash(like.length === 64 ? 'sha256' : 'sha1').update(`blob ${size}\0`);
  return new Promise((resolve, reject) => {
    const stream = createReadStream(file);
    let read = 0n;
    stream.on('data', (chunk) => {
      read += BigInt(chunk.length);
      hash.update(chunk);
    });
    stream.on('error', reject);
    // A file that grew or shrank while it was read is being written: it has changed.
    stream.on('end', () => resolve(read === size ? hash.digest('hex') : ''));
  });
}

/** The unsure notes whose files still differ after `git hash-object` applies the path's filters. */
async function differAfterFilters(
  root: string,
  notes: readonly IndexNote[],
  io: GitIO,
): Promise<IndexNote[]> {
  // hash-object reads one path per line: a name with a newline cannot be asked about, so it counts.
  const askable = notes.filter((note) => !note.path.includes('\n'));
  const changed = notes.filter((note) => note.path.includes('\n'));
  if (askable.length === 0) return changed;
  const result = await runGit(['hash-object', '--stdin-paths'], {
    ...gitIO(io),
    cwd: root,
    input: `${askable.map((note) => note.path).join('\n')}\n`,
  });
  const oids = succeeded(result) ? result.stdout.toString('utf8').split('\n') : [];
  askable.forEach((note, index) => {
    if (oids[index] !== note.oid) changed.push(note);
  });
  return changed;
}

/**
 * Submodules checked out in the checkout, or (after a deinit) their repositories still in its git
 * dir: Git refuses to remove a worktree that has either.
 */
export function checkedOutSubmodules(
  root: string,
  gitDir: string,
  notes: readonly IndexNote[],
): InnerCheckout[] {
  const inner: InnerCheckout[] = [];
  for (const note of notes) {
    if (note.mode !== '160000') continue;
    if (pathPresent(join(root, note.path, '.git'))) inner.push({ path: note.path, kind: 'submodule' });
  }
  // Submodule repositories Git keeps for a linked worktree: `git worktree remove` refuses while they exist.
  if (inner.length === 0 && pathPresent(join(gitDir, 'modules'))) {
    inner.push({ path: join(gitDir, 'modules'), kind: 'submodule' });
  }
  return inner;
}

/**
 * Refs that live in a linked worktree's own git dir (`refs/worktree/…`, `refs/bisect/…`): they go
 * with the worktree. Branches and stashes are the repository's and stay. Synchronous: a survey asks
 * it of every linked worktree, and the common answer is one readdir of a directory that is absent.
 */
export function privateRefs(gitDir: string): InnerCheckout[] {
  const found: InnerCheckout[] = [];
  const walk = (dir: string, name: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') found.push({ path: `${name} (cannot read: ${code})`, kind: 'ref' });
      return;
    }
    for (const entry of entries) {
      const path = `${name}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), path);
      else found.push({ path, kind: 'ref' });
    }
  };
  const refs = join(gitDir, 'refs');
  // Usually absent: a stat says so without building an error (any other failure, readdir reports).
  let absent = false;
  try {
    absent = lstatSync(refs, { throwIfNoEntry: false }) === undefined;
  } catch {}
  if (!absent) walk(refs, 'refs');
  return found;
}
