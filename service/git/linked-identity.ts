// A linked worktree's identity proven from its files, so the loss rule's identity check (its own
// `.git`, and Git's top level is the checkout itself) costs no git process in the common case. Git
// finds a `.git` file in the directory it starts in and never walks up past it (a broken one is an
// error, and the status read that follows fails), and in a linked worktree it takes no
// `core.worktree` unless the repository turns on `extensions.worktreeConfig`: then the top level
// is the checkout, as `git rev-parse --show-toplevel` would say. The files must also agree that the
// checkout is this repository's: its `.git` names an admin dir whose `commondir` is the
// repository's and whose `gitdir` names the checkout back. Anything else (a `.git` directory, a
// link, per-worktree config, a repository config that mentions worktreeConfig) is a doubt: the
// caller asks Git.

import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type GitDirs, pathPresent } from './git-dir.js';

/** The repository config mentions per-worktree config: `core.worktree` may move a work tree. */
export async function worktreeConfigPossible(commonDir: string): Promise<boolean> {
  try {
    return /worktreeconfig/i.test(await readFile(join(commonDir, 'config'), 'utf8'));
  } catch (error) {
    // No config file: Git's defaults (no extension). Unreadable: doubt.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * The checkout's git dirs when its files prove that Git's top level for `path` is `path`, a linked
 * worktree of the repository whose common directory is `commonDir`; null for any doubt (then ask
 * Git). Synchronous: a survey asks it of every worktree, and each of its few small reads and
 * realpaths costs less than an asynchronous call's thread-pool round trip.
 */
export function linkedIdentityProven(path: string, commonDir: string): GitDirs | null {
  try {
    const dotGit = join(path, '.git');
    if (!lstatSync(dotGit).isFile()) return null;
    const pointer = readFileSync(dotGit, 'utf8')
      .match(/^gitdir: (.+)$/m)?.[1]
      ?.trim();
    if (!pointer) return null;
    const adminDir = resolve(path, pointer);
    const common = readFileSync(join(adminDir, 'commondir'), 'utf8');
    const back = readFileSync(join(adminDir, 'gitdir'), 'utf8');
    // Present, or unreadable: a doubt either way.
    if (pathPresent(join(adminDir, 'config.worktree'))) return null;
    const ownCommon = resolve(adminDir, common.trim());
    const proven =
      realpathSync.native(ownCommon) === realpathSync.native(commonDir) &&
      realpathSync.native(resolve(adminDir, back.trim())) === realpathSync.native(dotGit);
    // The dirs gitDirsOfSync reads from the same two files.
    return proven ? { gitDir: adminDir, commonDir: ownCommon, linked: ownCommon !== adminDir } : null;
  } catch {
    return null;
  }
}
