// The per-repository lock that serializes removals in one repository (prune, the sweep, close):
// keyed by the Git common directory, kept in the state dir so nothing is written into the repository.
// Lock order: a repository lock is taken before the registry locks (repositories.json, worktrees.json),
// never while holding one.

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { StatePaths } from '../state/paths.js';

export function repositoryLockPath(paths: StatePaths, commonDir: string): string {
  const key = createHash('sha256').update(commonDir).digest('hex').slice(0, 20);
  return join(paths.dir, 'locks', `repository-${key}`);
}
