// The records of the sweep: sweep-request.json (a durable request for one cleanup pass), sweep.json
// and sweeps.jsonl (passes: prune's entries and doctor's findings). The core owns them;
// sweep-schemas.ts checks its schemas against them, and `prune --json` prints the same entries.

import type { LandedDirty } from './loss-types.js';

export type SweepRequest = {
  version: 1;
  /** The latest request; a pass is owed while it is newer than `handled_ms`. */
  requested_ms: number;
  /** The pane that asked last (the stop gate's owner), or null. */
  by: string | null;
  /** The request the last completed pass answered. */
  handled_ms: number | null;
};

/** What a prune removed. `kind` is its category: any string in a pass a newer build wrote. */
export type PruneResult<K extends string = string> = {
  kind: K;
  /** The removed path (for a branch, its repository; for a pane or workspace, its id). */
  path: string;
  branch: string | null;
  branch_deleted: boolean;
  /** Herdr panes closed: with the worktree, or the pane or workspace entry's own. */
  panes: string[];
  /** Something else had already removed it; only its registration went. */
  already_removed: boolean;
  detail: string;
};

export type PruneSkip<K extends string = string> = {
  kind: K;
  path: string;
  branch: string | null;
  reason: string;
};

export type PruneFailure<K extends string = string> = {
  kind: K;
  path: string;
  branch: string | null;
  error: string;
};

/** A worktree its repository no longer lists: doctor's finding, a sweep pass's too. */
export type Unlinked = { repository: string; path: string; reason: string };

/** An orphaned child the service keeps open. */
export type OrphanHold = {
  item: string;
  name: string | null;
  pane: string | null;
  path: string | null;
  reason: string;
};

export type SweepPass = {
  version: 1;
  /** When the pass completed: sweeps.jsonl keeps seven days by it. */
  ts_ms: number;
  started_ms: number;
  finished_ms: number;
  /** The request it answered; null for a pass of the orphan check, which runs without one. */
  request_ms: number | null;
  /** `request` (a requested cleanup pass; absent in older files) or `orphans` (the orphan check). */
  trigger?: 'request' | 'orphans';
  results: PruneResult[];
  skipped: PruneSkip[];
  failures: PruneFailure[];
  /** Repository warnings (a failed fetch…) and the survey's own warnings. */
  warnings: string[];
  landed_dirty: LandedDirty[];
  unlinked: Unlinked[];
  /** Orphaned children kept open (orphan-rule.ts), with why; absent in older files. */
  orphans?: OrphanHold[];
  /** Set when the pass could not survey at all (then the lists are empty). */
  error: string | null;
};
