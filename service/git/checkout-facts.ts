// The per-tick checkout facts an agent pane shows: branch, commits ahead of the default branch, and
// whether the checkout is dirty. Kept to three cheap git calls (top level, status without ignored
// files, one rev-list) because the service reads every pane's checkout on every tick.

import { lstat, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { defaultBranchOf, readRefs } from './refs.js';
import { gitText } from './run.js';

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

export async function readCheckoutFacts(root: string, signal?: AbortSignal): Promise<CheckoutFacts> {
  const [status, refs] = await Promise.all([
    gitText(['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=normal', '--no-renames'], {
      cwd: root,
      signal,
    }),
    readRefs(root, signal),
  ]);
  let branch: string | null = null;
  let head: string | null = null;
  let dirty = false;
  for (const field of status.split('\0')) {
    if (field.startsWith('# branch.head ')) {
      const name = field.slice('# branch.head '.length);
      branch = name === '(detached)' ? null : name;
    } else if (field.startsWith('# branch.oid ')) {
      const oid = field.slice('# branch.oid '.length);
      head = oid === '(initial)' ? null : oid;
    } else if (field !== '' && !field.startsWith('#')) {
      dirty = true;
    }
  }
  const base = defaultBranchOf(refs);
  let ahead: number | null = null;
  if (head && base.target) {
    const count = await gitText(['rev-list', '--count', `${base.target}..${head}`], { cwd: root, signal });
    ahead = Number.parseInt(count.trim(), 10);
  }
  return { branch, head, ahead, dirty, base: base.target, defaultBranch: base.name };
}

/**
 * The checkout containing `cwd`, found by walking up to the nearest `.git` (a directory, or the
 * file a linked worktree has) with stats only: the service resolves every pane's cwd each tick.
 */
export async function findCheckoutRoot(cwd: string): Promise<string | null> {
  let dir = resolve(cwd);
  for (;;) {
    const found = await lstat(join(dir, '.git')).catch(() => undefined);
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
 * not change it, so callers re-read dirtiness on a timer.
 */
export async function checkoutFingerprint(root: string): Promise<string> {
  const dotGit = join(root, '.git');
  let gitDir = dotGit;
  const entry = await lstat(dotGit);
  if (entry.isFile()) {
    const pointer = (await readFile(dotGit, 'utf8')).match(/^gitdir: (.+)$/m)?.[1]?.trim();
    if (pointer) gitDir = resolve(root, pointer);
  }
  const common = await readFile(join(gitDir, 'commondir'), 'utf8').then(
    (text) => resolve(gitDir, text.trim()),
    () => gitDir,
  );
  const files = [
    join(gitDir, 'HEAD'),
    join(gitDir, 'index'),
    join(common, 'packed-refs'),
    join(common, 'refs', 'heads'),
    join(common, 'refs', 'remotes', 'origin'),
  ];
  const parts = await Promise.all(
    files.map(async (file) => {
      const info = await stat(file).catch(() => undefined);
      return info ? `${info.mtimeMs}:${info.size}` : '-';
    }),
  );
  return `${gitDir}|${parts.join('|')}`;
}

/** Whether the checkout has changes, untracked files included and ignored ones not: one git call. */
export async function readDirty(root: string, signal?: AbortSignal): Promise<boolean> {
  const status = await gitText(
    ['status', '--porcelain=v2', '-z', '--untracked-files=normal', '--no-renames'],
    {
      cwd: root,
      signal,
    },
  );
  return status !== '';
}
