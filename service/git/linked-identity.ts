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

import { lstat, readFile, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';

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
 * True when the files prove that Git's top level for `path` is `path`, a linked worktree of the
 * repository whose common directory is `commonDir`; false for any doubt (then ask Git).
 */
export async function linkedIdentityProven(path: string, commonDir: string): Promise<boolean> {
  try {
    const dotGit = join(path, '.git');
    if (!(await lstat(dotGit)).isFile()) return false;
    const pointer = (await readFile(dotGit, 'utf8')).match(/^gitdir: (.+)$/m)?.[1]?.trim();
    if (!pointer) return false;
    const adminDir = resolve(path, pointer);
    const [common, back, ownConfig] = await Promise.all([
      readFile(join(adminDir, 'commondir'), 'utf8'),
      readFile(join(adminDir, 'gitdir'), 'utf8'),
      lstat(join(adminDir, 'config.worktree')).then(
        () => true,
        (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
      ),
    ]);
    if (ownConfig) return false;
    const [commonReal, expectedCommon, backReal, dotGitReal] = await Promise.all([
      realpath(resolve(adminDir, common.trim())),
      realpath(commonDir),
      realpath(resolve(adminDir, back.trim())),
      realpath(dotGit),
    ]);
    return commonReal === expectedCommon && backReal === dotGitReal;
  } catch {
    return false;
  }
}
