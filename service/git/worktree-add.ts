// The git steps of making an agent worktree (spec, "Repository configuration"): checking a branch
// name the way git does, resolving a base to one commit, `git worktree add` with the lock taken in the
// same command (so no moment exists where the new worktree is unlocked), and undoing a worktree this
// process just made when its setup failed. Names and revisions are only ever argv words.

import { DogsledError } from '../errors.js';
import { failureOf, type GitIO, gitIO, runGit, succeeded } from './run.js';

/**
 * Why `name` is not a branch name git would create, or null. `check-ref-format --branch` also expands
 * `@{-1}` into the previous branch, so anything it rewrites is refused too.
 */
export async function branchNameProblem(repo: string, name: string, io: GitIO): Promise<string | null> {
  const result = await runGit(['check-ref-format', '--branch', name], { ...gitIO(io), cwd: repo });
  if (result.timedOut || result.signal !== null) {
    throw new DogsledError(`cannot check branch name in ${repo}: ${failureOf(result)}`);
  }
  if (result.exitCode !== 0) return 'git does not accept it as a branch name';
  const normalized = result.stdout.toString('utf8').replace(/\n$/, '');
  if (normalized !== name) return `git reads it as ${JSON.stringify(normalized)}`;
  return null;
}

/** The commit `rev` names, or null when it names none. `rev` may start with `-`: it is never an option. */
export async function resolveCommit(repo: string, rev: string, io: GitIO): Promise<string | null> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], {
    ...gitIO(io),
    cwd: repo,
  });
  if (result.exitCode === 1 && result.signal === null && !result.timedOut) return null;
  if (!succeeded(result)) throw new DogsledError(`cannot read ${rev} in ${repo}: ${failureOf(result)}`);
  return result.stdout.toString('utf8').trim();
}

export interface AddWorktree {
  path: string;
  branch: string;
  /** Make `branch` at `start` (a commit id); otherwise check out the existing branch. */
  create: { start: string } | null;
  lockReason: string;
}

/** `git worktree add --lock --reason R [-b B] PATH [START|B]`. */
export async function addLockedWorktree(repo: string, add: AddWorktree, io: GitIO): Promise<void> {
  const args = ['worktree', 'add', '--quiet', '--lock', '--reason', add.lockReason];
  if (add.create) args.push('--no-track', '-b', add.branch, add.path, add.create.start);
  else args.push(add.path, add.branch);
  const result = await runGit(args, { ...gitIO(io), cwd: repo });
  if (!succeeded(result)) throw new DogsledError(`cannot make worktree ${add.path}: ${failureOf(result)}`);
}

/**
 * Removes a worktree this process made moments ago, with whatever its setup left in it: twice forced,
 * since it is locked and may hold untracked files. Never use it on a worktree someone worked in.
 */
export async function discardNewWorktree(repo: string, path: string, io: GitIO): Promise<void> {
  const result = await runGit(['worktree', 'remove', '--force', '--force', path], {
    ...gitIO(io),
    cwd: repo,
  });
  if (!succeeded(result)) throw new DogsledError(`cannot remove ${path}: ${failureOf(result)}`);
}
