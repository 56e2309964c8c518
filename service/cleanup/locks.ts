// The per-repository lock that serializes removals in one repository (prune, the sweep, close):
// keyed by the Git common directory, kept in the state dir so nothing is written into the repository.
// Lock order: a repository lock is taken before the registry locks (repositories.json, worktrees.json),
// never while holding one.

import { join } from 'node:path';
import type { StatePaths } from '../state/paths.js';

// node:crypto is loaded here, on use: every hot bundle carries this module, few commands lock a repository.
export function repositoryLockPath(paths: StatePaths, commonDir: string): string {
  const key = process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(commonDir)
    .digest('hex')
    .slice(0, 20);
  return join(paths.dir, 'locks', `repository-${key}`);
}
