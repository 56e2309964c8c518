// The per-tick checkout facts an agent pane shows: branch, commits ahead of the default branch, and
// whether the checkout is dirty. Dirty is the loss rule's own reading of the checkout's changes
// (status.ts: edits hidden behind index flags included), without the ignored listing. Kept to three
// git calls (status, refs, one rev-list) because the service reads every pane's checkout each tick.

import { lstatSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DogsledError } from '../core/common/errors.js';
import { gitDirsOfSync } from './git-dir.js';
import { readChanges } from './git-status.js';
import { defaultBranchOf, readRefs } from './refs.js';
import { type GitIO, gitIO, gitText } from './run-git.js';

export interface CheckoutFacts {
  branch: string | null;
  head: string | null;
  /** Commits on HEAD that the default branch does not hold; null without a default branch. */
  ahead: number | null;
  dirty: boolean;
  /** The ref `ahead` was counted against (origin's default, else the local one). */
  base: string | null;
  /** The default branch's local name. */
  defaultBranch: string;
}

export async function readCheckoutFacts(root: string, io: GitIO): Promise<CheckoutFacts> {
  const [changes, refs] = await Promise.all([ownChanges(root, io), readRefs(root, io)]);
  const { branch, head } = changes;
  const base = defaultBranchOf(refs);
  let ahead: number | null = null;
  if (head && base.target) {
    const count = await gitText(['rev-list', '--count', `${base.target}..${head}`], {
      ...gitIO(io),
      cwd: root,
    });
    ahead = Number.parseInt(count.trim(), 10);
  }
  return { branch, head, ahead, dirty: changes.dirty, base: base.target, defaultBranch: base.name };
}

async function ownChanges(root: string, io: GitIO) {
  const read = await readChanges(root, { ...gitIO(io), inner: false });
  if (!read.ok) throw new DogsledError(`${root}: ${read.reason}`);
  const { status } = read;
  return {
    branch: status.branch,
    head: status.head,
    dirty: status.entries.length > 0 || status.hidden.length > 0,
  };
}

/**
 * The checkout containing `cwd`, found by walking up to the nearest `.git` (a directory, or the
 * file a linked worktree has) with stats only: the service resolves every pane's cwd each tick.
 * The stats are synchronous, as in checkoutFingerprint.
 */
export async function findCheckoutRoot(cwd: string): Promise<string | null> {
  let dir = resolve(cwd);
  for (;;) {
    const found = statOrUndefined(lstatSync, join(dir, '.git'));
    if (found && (found.isDirectory() || found.isFile())) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * What changes when a checkout's HEAD, branch, index or the refs its facts are counted against
 * change: the mtimes and sizes of its HEAD and index, and of the common directory's packed refs
 * and ref directories (a ref update renames a file into its directory). Edits to working files do
 * not change it, so callers re-read dirtiness on a timer. The service takes it for every checkout
 * each tick, so its stats are synchronous: an asynchronous one costs a thread-pool round trip, some
 * 50 µs of CPU against a few for the system call, and a quiet checkout costs nothing else.
 */
export async function checkoutFingerprint(root: string): Promise<string> {
  const { gitDir, commonDir: common } = gitDirsOfSync(root);
  const files = [
    join(gitDir, 'HEAD'),
    join(gitDir, 'index'),
    join(common, 'packed-refs'),
    join(common, 'refs', 'heads'),
    join(common, 'refs', 'remotes', 'origin'),
  ];
  const parts = files.map((file) => {
    const info = statOrUndefined(statSync, file);
    return info ? `${info.mtimeMs}:${info.size}` : '-';
  });
  return `${gitDir}|${parts.join('|')}`;
}

/** The stat of `path`, or undefined when it cannot be taken (missing, unreadable: as before, a miss). */
function statOrUndefined(
  how: typeof statSync | typeof lstatSync,
  path: string,
): { mtimeMs: number; size: number; isDirectory(): boolean; isFile(): boolean } | undefined {
  try {
    return how(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Whether the checkout has changes of its own, untracked and hidden ones included, ignored ones not. */
export async function readDirty(root: string, io: GitIO): Promise<boolean> {
  return (await ownChanges(root, io)).dirty;
}
