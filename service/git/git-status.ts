// A checkout's identity and its changes, read for the loss rule. Identity first: the checkout must
// have its own `.git` and Git's top level must be the checkout itself, so a directory whose `.git`
// is gone never reports its parent repository's state as its own. Changes come from one
// `git status --porcelain=v2 -z` (with every setting that would hide a change forced off), plus what
// status never prints (hidden-content.ts): edits behind index flags and other checkouts' content.

import { lstatSync, realpathSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckoutIdentity, CheckoutStatus, StatusEntry } from '../core/cleanup/loss-types.js';
import { messageOf } from '../core/common/errors.js';
import { type GitDirs, gitDirsOf, gitDirsOfSync } from './git-dir.js';
import { checkedOutSubmodules, hiddenEdits, privateRefs } from './hidden-content.js';
import { parseLsFiles, readIndexNotes } from './index-file.js';
import { linkedIdentityProven } from './linked-identity.js';
import { failureOf, type GitIO, gitIO, runGit, splitNul, succeeded } from './run-git.js';

/**
 * A checkout's identity as checkoutIdentity reads it, with what the read learnt on the way: the
 * checkout's real path, and its git dirs when its files proved it (so they are not read again).
 */
export type IdentityRead = CheckoutIdentity & { real?: string; dirs?: GitDirs };

/**
 * Whether `path` is a checkout of its own, checked before anything is read from it. `linkedOf`:
 * the common dir of the repository that lists `path` as a linked worktree, when its config cannot
 * move a work tree (worktreeConfigPossible): then the checkout's files may prove it without a git
 * process (linked-identity.ts), and Git is asked only when they do not. The file checks are
 * synchronous (a survey makes them for every worktree; each is cheaper than a thread-pool round trip).
 */
export async function checkoutIdentity(path: string, io: GitIO, linkedOf?: string): Promise<IdentityRead> {
  try {
    lstatSync(join(path, '.git'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? '.git is missing' : `cannot read .git (${code})` };
  }
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch (error) {
    return { ok: false, reason: `cannot resolve the path (${messageOf(error)})` };
  }
  const dirs = linkedOf !== undefined ? linkedIdentityProven(path, linkedOf) : null;
  if (dirs !== null) return { ok: true, real, dirs };
  const result = await runGit(['rev-parse', '--show-toplevel'], { ...gitIO(io), cwd: path });
  if (!succeeded(result)) return { ok: false, reason: failureOf(result), real };
  const top = result.stdout.toString('utf8').replace(/\n$/, '');
  let realTop: string;
  try {
    realTop = await realpath(top);
  } catch {
    realTop = top;
  }
  if (realTop !== real) return { ok: false, reason: `git's top level is ${top}, not this directory`, real };
  return { ok: true, real };
}

/**
 * Parses `git status --porcelain=v2 -z --branch [--ignored=traditional --untracked-files=all]`. With
 * that listing Git names every ignored file and stops only at a nested repository (or worktree),
 * which it prints as a directory: those are inner checkouts, the rest ignored files.
 */
export function parseStatus(text: string): CheckoutStatus {
  const status: CheckoutStatus = { head: null, branch: null, entries: [], ignored: 0, hidden: [], inner: [] };
  const fields = splitNul(text);
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? '';
    if (field.startsWith('# branch.oid ')) {
      const oid = field.slice('# branch.oid '.length);
      status.head = oid === '(initial)' ? null : oid;
    } else if (field.startsWith('# branch.head ')) {
      const head = field.slice('# branch.head '.length);
      status.branch = head === '(detached)' ? null : head;
    } else if (field.startsWith('? ')) {
      status.entries.push({
        path: field.slice(2),
        xy: '??',
        untracked: true,
        inHead: false,
        submodule: false,
      });
    } else if (field.startsWith('! ')) {
      const path = field.slice(2);
      if (path.endsWith('/')) status.inner.push({ path: path.slice(0, -1), kind: 'repository' });
      else status.ignored++;
    } else if (field.startsWith('1 ') || field.startsWith('2 ') || field.startsWith('u ')) {
      status.entries.push(trackedEntry(field));
      // A rename or copy record carries its original path in the next field.
      if (field.startsWith('2 ')) i++;
    }
  }
  return status;
}

function trackedEntry(field: string): StatusEntry {
  const kind = field[0];
  // Fixed fields before the path: 1 → 8, 2 → 9 (adds the score), u → 10.
  const fixed = kind === '1' ? 8 : kind === '2' ? 9 : 10;
  const parts = field.split(' ');
  const path = parts.slice(fixed).join(' ');
  const xy = parts[1] ?? '';
  const sub = parts[2] ?? 'N...';
  const headMode = parts[3] ?? '000000';
  return {
    path,
    xy: kind === 'u' ? `u${xy}` : xy,
    untracked: false,
    inHead: kind !== 'u' && headMode !== '000000',
    submodule: sub.startsWith('S'),
  };
}

/**
 * Settings that would let status skip or trust what it should look at: stat shortcuts that ignore
 * ctime, a cached untracked listing, an ignored executable bit, submodules configured away.
 * (core.fsmonitor is off for every git call, in run.ts.)
 */
const STATUS_CONFIG = [
  '-c',
  'core.untrackedCache=false',
  '-c',
  'core.checkStat=default',
  '-c',
  'core.trustctime=true',
  '-c',
  'core.fileMode=true',
  '-c',
  'core.ignoreStat=false',
  '-c',
  'status.showUntrackedFiles=all',
  '-c',
  'diff.ignoreSubmodules=none',
];

export type StatusRead = { ok: true; status: CheckoutStatus } | { ok: false; reason: string };

export interface ChangesOptions extends GitIO {
  /**
   * Also list ignored files and look for other checkouts' content inside this one (the loss rule);
   * without it only the checkout's own changes are read (an agent pane's `dirty`).
   */
  inner: boolean;
}

/**
 * The checkout's HEAD, branch and changes, those `git status` is told not to print included. With
 * `inner`, ignored files are counted apart (they never count) and inner checkouts are listed.
 */
export async function readChanges(path: string, options: ChangesOptions): Promise<StatusRead> {
  const io: GitIO = { env: options.env, signal: options.signal };
  const listing = options.inner
    ? ['--ignored=traditional', '--untracked-files=all']
    : ['--untracked-files=normal'];
  const result = await runGit(
    [
      ...STATUS_CONFIG,
      'status',
      '--porcelain=v2',
      '-z',
      '--branch',
      ...listing,
      '--no-renames',
      '--ignore-submodules=none',
    ],
    { ...gitIO(io), cwd: path },
  );
  if (!succeeded(result)) return { ok: false, reason: failureOf(result) };
  const text = result.stdout.toString('utf8');
  // `--branch` puts `# branch.oid` first in every listing: without it the answer is not a whole
  // status (an empty one would read as a clean checkout), so the checkout is not read.
  if (!text.startsWith('# branch.oid ')) return { ok: false, reason: 'git status printed no branch header' };
  const status = parseStatus(text);
  if (!options.inner) status.inner = [];
  let dirs: GitDirs;
  try {
    dirs = await gitDirsOf(path);
  } catch (error) {
    return { ok: false, reason: `cannot find its git dir (${messageOf(error)})` };
  }
  let notes = await readIndexNotes(dirs.gitDir);
  if (notes === null) {
    const listed = await runGit(['ls-files', '-v', '-s', '-z'], { ...gitIO(io), cwd: path });
    if (!succeeded(listed)) return { ok: false, reason: failureOf(listed) };
    notes = parseLsFiles(listed.stdout.toString('utf8'));
  }
  status.hidden = await hiddenEdits(path, notes, io);
  if (options.inner) {
    status.inner.push(...checkedOutSubmodules(path, dirs.gitDir, notes));
    if (dirs.linked) status.inner.push(...privateRefs(dirs.gitDir));
  }
  return { ok: true, status };
}

/**
 * The loss rule's status of a checkout stat-clean.ts proved clean (nothing `git status` would list)
 * at `head` on `branch`: what status never prints is still read, as readChanges does; the proof
 * holds no flagged entry and no submodule, so only a linked worktree's own refs and a deinit'ed
 * submodule's repository can remain. `dirs`: the checkout's git dirs, when already read.
 */
export function provenCleanStatus(path: string, head: string, branch: string, dirs?: GitDirs): StatusRead {
  let found: GitDirs;
  try {
    found = dirs ?? gitDirsOfSync(path);
  } catch (error) {
    return { ok: false, reason: `cannot find its git dir (${messageOf(error)})` };
  }
  const inner = checkedOutSubmodules(path, found.gitDir, []);
  if (found.linked) inner.push(...privateRefs(found.gitDir));
  return { ok: true, status: { head, branch, entries: [], ignored: 0, hidden: [], inner } };
}

/** The checkout's state for the loss rule: ignored files apart, inner checkouts listed. */
export function readStatus(path: string, io: GitIO): Promise<StatusRead> {
  return readChanges(path, { ...gitIO(io), inner: true });
}

/** Markers Git leaves in a checkout's git dir while an operation waits for the user. */
const OPERATIONS: ReadonlyArray<[string, string]> = [
  ['rebase-merge', 'a rebase'],
  ['rebase-apply', 'a rebase or am'],
  ['MERGE_HEAD', 'a merge'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
  ['sequencer', 'a cherry-pick or revert sequence'],
  ['BISECT_LOG', 'a bisect'],
];

/**
 * The branch an operation in a checkout holds while its HEAD is detached (Git's `head-name` of a
 * rebase, the branch a bisect started on), as a full ref, or null. Git refuses to delete that
 * branch, and a rebase that finishes or aborts writes it back.
 */
export async function branchHeldByOperation(
  path: string,
): Promise<{ ref: string; operation: string } | null> {
  let gitDir: string;
  try {
    gitDir = (await gitDirsOf(path)).gitDir;
  } catch {
    return null;
  }
  const read = (name: string) =>
    readFile(join(gitDir, name), 'utf8').then(
      (text) => text.trim(),
      () => '',
    );
  for (const dir of ['rebase-merge', 'rebase-apply']) {
    const ref = await read(join(dir, 'head-name'));
    if (ref.startsWith('refs/heads/')) return { ref, operation: 'a rebase' };
  }
  const bisected = await read('BISECT_START');
  if (bisected !== '' && !/^[0-9a-f]{40,64}$/.test(bisected)) {
    return { ref: `refs/heads/${bisected}`, operation: 'a bisect' };
  }
  return null;
}

/**
 * The operation in progress in a checkout (its git dir holds the markers), or null. `dirs`: the
 * checkout's git dirs, when already read. Unreadable evidence counts as an operation: the caller
 * keeps the checkout. Synchronous: seven stats, the absent ones (the common answer) building no error.
 */
export function operationInProgress(path: string, dirs?: GitDirs): string | null {
  let gitDir: string;
  try {
    gitDir = (dirs ?? gitDirsOfSync(path)).gitDir;
  } catch (error) {
    return `an unreadable .git (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`;
  }
  for (const [marker, what] of OPERATIONS) {
    try {
      if (lstatSync(join(gitDir, marker), { throwIfNoEntry: false }) !== undefined) return what;
    } catch (error) {
      // ENOENT answers undefined above: anything thrown means the marker cannot be checked.
      return `${what} (cannot check: ${(error as NodeJS.ErrnoException).code})`;
    }
  }
  return null;
}
