// A checkout's identity and its changes, read for the loss rule. Identity first: the checkout must
// have its own `.git` and Git's top level must be the checkout itself, so a directory whose `.git`
// is gone never reports its parent repository's state as its own. Changes come from one
// `git status --porcelain=v2 -z` that also names ignored paths, so they can be told apart.

import { lstat, readFile, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CheckoutIdentity, CheckoutStatus, StatusEntry } from '../core/loss-types.js';
import { messageOf } from '../errors.js';
import { failureOf, runGit, splitNul, succeeded } from './run.js';

/** Whether `path` is a checkout of its own, checked before anything is read from it. */
export async function checkoutIdentity(path: string, signal?: AbortSignal): Promise<CheckoutIdentity> {
  try {
    await lstat(join(path, '.git'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? '.git is missing' : `cannot read .git (${code})` };
  }
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    return { ok: false, reason: `cannot resolve the path (${messageOf(error)})` };
  }
  const result = await runGit(['rev-parse', '--show-toplevel'], { cwd: path, signal });
  if (!succeeded(result)) return { ok: false, reason: failureOf(result) };
  const top = result.stdout.toString('utf8').replace(/\n$/, '');
  let realTop: string;
  try {
    realTop = await realpath(top);
  } catch {
    realTop = top;
  }
  if (realTop !== real) return { ok: false, reason: `git's top level is ${top}, not this directory` };
  return { ok: true };
}

/** Parses `git status --porcelain=v2 -z --branch --ignored=matching`. */
export function parseStatus(text: string): CheckoutStatus {
  const status: CheckoutStatus = { head: null, branch: null, entries: [], ignored: [] };
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
      status.ignored.push(field.slice(2));
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
  const headMode = kind === 'u' ? (parts[3] ?? '000000') : (parts[3] ?? '000000');
  return {
    path,
    xy: kind === 'u' ? `u${xy}` : xy,
    untracked: false,
    inHead: kind !== 'u' && headMode !== '000000',
    submodule: sub.startsWith('S'),
  };
}

export type StatusRead = { ok: true; status: CheckoutStatus } | { ok: false; reason: string };

/** The checkout's HEAD, branch and changes; ignored paths are listed apart and never count. */
export async function readStatus(path: string, signal?: AbortSignal): Promise<StatusRead> {
  const result = await runGit(
    [
      'status',
      '--porcelain=v2',
      '-z',
      '--branch',
      '--ignored=matching',
      '--untracked-files=all',
      '--no-renames',
      '--ignore-submodules=none',
    ],
    { cwd: path, signal },
  );
  if (!succeeded(result)) return { ok: false, reason: failureOf(result) };
  return { ok: true, status: parseStatus(result.stdout.toString('utf8')) };
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
 * The operation in progress in a linked worktree (its `.git` file names its git dir), or null.
 * Unreadable evidence counts as an operation: the caller keeps the checkout.
 */
export async function operationInProgress(path: string): Promise<string | null> {
  let gitDir: string;
  try {
    const pointer = (await readFile(join(path, '.git'), 'utf8')).match(/^gitdir: (.+)$/m)?.[1]?.trim();
    if (!pointer) return 'an unreadable .git file';
    gitDir = resolve(path, pointer);
  } catch (error) {
    // The main checkout's .git is a directory; linked worktrees are all this module surveys.
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') gitDir = join(path, '.git');
    else return `an unreadable .git file (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  for (const [marker, what] of OPERATIONS) {
    try {
      await lstat(join(gitDir, marker));
      return what;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        return `${what} (cannot check: ${(error as NodeJS.ErrnoException).code})`;
    }
  }
  return null;
}
