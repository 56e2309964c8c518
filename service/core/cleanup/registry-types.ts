// The records of the two registries: repositories.json (repositories placement has seen) and
// worktrees.json (worktrees dogsled made), which prune and the sweep judge. The core owns them;
// registry-schemas.ts checks its schemas against them.

export type RepositoryRecord = {
  /** The main checkout. */
  path: string;
  added_ms: number;
  /** The last time placement used it. */
  last_seen_ms: number;
  /** `git remote get-url origin` when placement knew it. */
  origin?: string;
};

export type Repositories = { version: 1; repositories: RepositoryRecord[] };

export type WorktreeRecord = {
  /** The linked worktree. */
  path: string;
  /** Its repository's main checkout. */
  repository: string;
  branch: string;
  created_ms: number;
  /** The Herdr workspace opened as the main checkout's anchor for this worktree, if any. */
  anchor_workspace?: string;
};

export type Worktrees = { version: 1; worktrees: WorktreeRecord[] };
