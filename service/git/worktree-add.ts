// The git steps of making an agent worktree (spec, "Repository configuration"): checking a branch
// name the way git does, resolving a base to one commit, `git worktree add` with the lock taken in the
// same command (so no moment exists where the new worktree is unlocked), and undoing a worktree (and
// the branch) this process just made when it or its setup failed. Names and revisions are only ever
// argv words.

import { DogsledError, messageOf } from '../core/common/errors.js';
import { failureOf, type GitIO, gitIO, runGit, succeeded } from './run-git.js';
import { type GitWorktree, listWorktrees } from './worktrees.js';

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

/**
 * Makes the worktree, and first the branch when `create` asks for it, or leaves the repository as it
 * was. The branch is made on its own (`update-ref` that fails if it exists) rather than by `worktree
 * add -b`, which makes it and keeps it when the worktree then fails: so a branch is only ever removed
 * here when this call made it, and only while it still points where it was made. The caller has
 * checked, under the repository's lock, that no worktree has the branch checked out: one that does
 * after a failed `worktree add` (a post-checkout hook that failed keeps it) is this call's, removed.
 */
export async function addLockedWorktree(repo: string, add: AddWorktree, io: GitIO): Promise<void> {
  const ref = `refs/heads/${add.branch}`;
  if (add.create) {
    const made = await runGit(
      ['update-ref', '-m', `branch: Created from ${add.create.start}`, ref, add.create.start, ''],
      { ...gitIO(io), cwd: repo },
    );
    if (!succeeded(made)) throw new DogsledError(`cannot make branch ${add.branch}: ${failureOf(made)}`);
  }
  const args = ['worktree', 'add', '--quiet', '--lock', '--reason', add.lockReason, add.path, add.branch];
  const result = await runGit(args, { ...gitIO(io), cwd: repo });
  if (succeeded(result)) return;
  // Undone even when the caller is stopping: what this call made must not outlive it.
  const undone = await undoFailedAdd(repo, add, { env: io.env });
  throw new DogsledError(`cannot make worktree ${add.path}: ${failureOf(result)}; ${undone}`);
}

/** Removes what a failed `worktree add` left of this call's work; says what it did. */
async function undoFailedAdd(repo: string, add: AddWorktree, io: GitIO): Promise<string> {
  const ref = `refs/heads/${add.branch}`;
  const left: string[] = [];
  let worktrees: GitWorktree[] = [];
  try {
    worktrees = await listWorktrees(repo, io);
  } catch (error) {
    left.push(`cannot list worktrees (${messageOf(error)})`);
  }
  for (const worktree of worktrees.filter((each) => each.branch === ref && !each.main)) {
    try {
      await discardNewWorktree(repo, worktree.path, io);
    } catch (error) {
      left.push(`the worktree ${worktree.path} stays (${messageOf(error)})`);
    }
  }
  if (add.create === null) {
    return left.length === 0 ? `branch ${add.branch} stays as it was` : left.join('; ');
  }
  if (left.length > 0) return [...left, `branch ${add.branch} stays`].join('; ');
  // The old value makes git refuse if the branch moved since: then it is someone's work.
  const removed = await runGit(['update-ref', '-d', ref, add.create.start], { ...gitIO(io), cwd: repo });
  if (!succeeded(removed)) return `branch ${add.branch} stays (${failureOf(removed)})`;
  return `removed branch ${add.branch}, which this attempt made`;
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
