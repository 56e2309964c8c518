// The per-tick checkout facts an agent pane shows: branch, commits ahead of the default branch, and
// whether the checkout is dirty. Kept to three cheap git calls (top level, status without ignored
// files, one rev-list) because the service reads every pane's checkout on every tick.

import { defaultBranchOf, readRefs } from './refs.js';
import { failureOf, gitText, runGit, succeeded } from './run.js';

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

/** The top level of the checkout containing `cwd`, or null when `cwd` is not in a work tree. */
export async function checkoutRootOf(cwd: string, signal?: AbortSignal): Promise<string | null> {
  const result = await runGit(['rev-parse', '--show-toplevel'], { cwd, signal });
  if (!succeeded(result)) {
    if (/not a git repository|outside repository|must be run in a work tree/i.test(result.stderr))
      return null;
    throw new Error(failureOf(result));
  }
  return result.stdout.toString('utf8').replace(/\n$/, '') || null;
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
