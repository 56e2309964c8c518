// Which repository a path belongs to: its Git common directory (the repository's identity, shared
// by all its worktrees), its object directory, and its main checkout (the first worktree Git lists).

import { join } from 'node:path';
import { type GitIO, gitIO, gitText } from './run-git.js';
import { type GitWorktree, listWorktrees } from './worktrees.js';

export interface RepositoryIdentity {
  /** Absolute Git common directory: the same for every worktree of one repository. */
  commonDir: string;
  objectDir: string;
  /** The main checkout, or null for a bare repository. */
  main: string | null;
  worktrees: GitWorktree[];
}

/** Throws a DogsledError when `path` is not inside a Git repository. */
export async function repositoryAt(path: string, io: GitIO): Promise<RepositoryIdentity> {
  const [commonText, worktrees] = await Promise.all([
    gitText(['rev-parse', '--path-format=absolute', '--git-common-dir'], { ...gitIO(io), cwd: path }),
    listWorktrees(path, io),
  ]);
  const commonDir = commonText.replace(/\n$/, '');
  const first = worktrees[0];
  return {
    commonDir,
    objectDir: join(commonDir, 'objects'),
    main: first && !first.bare ? first.path : null,
    worktrees,
  };
}
