// The only git commands that change a repository, each a single step of a removal that prune has
// already rechecked: unlock (and re-lock after a failed removal), restore deleted tracked paths from
// HEAD, `git worktree remove` without force, and `git branch -D`. None of them forces anything.

import { DogsledError } from '../core/common/errors.js';
import { failureOf, type GitIO, gitIO, runGit, succeeded } from './run-git.js';

async function mustRun(args: string[], cwd: string, what: string, io: GitIO): Promise<void> {
  const result = await runGit(args, { ...gitIO(io), cwd });
  if (!succeeded(result)) throw new DogsledError(`${what}: ${failureOf(result)}`);
}

export async function unlockWorktree(repo: string, path: string, io: GitIO): Promise<void> {
  await mustRun(['worktree', 'unlock', path], repo, `cannot unlock ${path}`, io);
}

export async function lockWorktree(repo: string, path: string, reason: string, io: GitIO): Promise<void> {
  await mustRun(['worktree', 'lock', '--reason', reason, path], repo, `cannot lock ${path}`, io);
}

/**
 * Puts back tracked paths that were deleted (staged or not) from HEAD, in the index and the
 * checkout, and nothing else. Pathspecs are literal: a name with `*` is that name.
 */
export async function restoreDeleted(path: string, paths: readonly string[], io: GitIO): Promise<void> {
  if (paths.length === 0) return;
  const result = await runGit(
    ['restore', '--source=HEAD', '--staged', '--worktree', '--pathspec-from-file=-', '--pathspec-file-nul'],
    { ...gitIO(io), cwd: path, input: `${paths.join('\0')}\0`, extraEnv: { GIT_LITERAL_PATHSPECS: '1' } },
  );
  if (!succeeded(result))
    throw new DogsledError(`cannot restore deleted files in ${path}: ${failureOf(result)}`);
}

/** `git worktree remove` without --force: Git itself refuses a dirty or locked worktree. */
export async function removeWorktree(repo: string, path: string, io: GitIO): Promise<void> {
  await mustRun(['worktree', 'remove', path], repo, `git refused to remove ${path}`, io);
}

/** `git branch -D`; the caller has just rechecked that the branch is at its planned commit. */
export async function deleteBranch(repo: string, branch: string, io: GitIO): Promise<void> {
  await mustRun(['branch', '-D', branch], repo, `cannot delete branch ${branch}`, io);
}

/** The commit a full ref name points at, or null when the ref does not exist. */
export async function resolveRef(repo: string, ref: string, io: GitIO): Promise<string | null> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
    ...gitIO(io),
    cwd: repo,
  });
  if (result.exitCode === 1 && result.signal === null && !result.timedOut) return null;
  if (!succeeded(result)) throw new DogsledError(`cannot read ${ref} in ${repo}: ${failureOf(result)}`);
  return result.stdout.toString('utf8').trim();
}

/** The short name of a branch ref: `refs/heads/a/b` → `a/b`. */
export function branchName(ref: string): string {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
}
