// Where a checkout's own git dir and its repository's common dir are, read from the files alone
// (no git process): a main checkout's `.git` is the git dir; a linked worktree's `.git` file names it,
// and that dir's `commondir` names the repository's.

import { lstatSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface GitDirs {
  gitDir: string;
  commonDir: string;
  /** A linked worktree: its git dir is its own, apart from the common dir. */
  linked: boolean;
}

/**
 * Throws (a Node error) when `.git` cannot be read or names nothing. The reads are gitDirsOfSync's:
 * a stat and two small reads, each cheaper than an asynchronous call's thread-pool round trip.
 */
export async function gitDirsOf(root: string): Promise<GitDirs> {
  return gitDirsOfSync(root);
}

/**
 * Where the checkout at `root` keeps its git dir and its repository's common dir, with synchronous
 * reads (the service's per-tick checkout fingerprint, a survey's read of each worktree): a stat and
 * at most two small reads. Throws (a Node error) when `.git` cannot be read or names nothing.
 */
export function gitDirsOfSync(root: string): GitDirs {
  const dotGit = join(root, '.git');
  const entry = lstatSync(dotGit);
  let gitDir = dotGit;
  if (!entry.isDirectory()) {
    if (!entry.isFile()) throw new Error(`${dotGit} is neither a directory nor a file`);
    const pointer = readFileSync(dotGit, 'utf8')
      .match(/^gitdir: (.+)$/m)?.[1]
      ?.trim();
    if (!pointer) throw new Error(`${dotGit} names no git dir`);
    gitDir = resolve(root, pointer);
  }
  let commonDir = gitDir;
  try {
    commonDir = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    // No commondir: the git dir is the repository's own.
  }
  return { gitDir, commonDir, linked: commonDir !== gitDir };
}

/**
 * Something is at `path`; a path that cannot be checked counts as present (it is never removed).
 * Synchronous: one lstat, and an absent path (the common answer of the markers and leftovers a
 * survey asks about) builds no error.
 */
export function pathPresent(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOTDIR';
  }
}
