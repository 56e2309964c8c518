// Prune's plan and its recheck (spec, "Cleanup"): the plan lists only entries whose removal loses
// nothing; right before each removal the entry is surveyed again and compared with the plan. A
// changed repository, path or branch is an identity change and a failure; a HEAD that moved, or a
// checkout that became dirty, held or not landed, is live work and a skip with its reason.

import {
  type BranchVerdict,
  TEARDOWN_BLOCKED,
  UNREADABLE_CHECK,
  UNREADABLE_READ,
  type WorktreeVerdict,
} from './loss-rule.js';

const FAILURE_REASONS = [UNREADABLE_CHECK, UNREADABLE_READ, TEARDOWN_BLOCKED];

export const PRUNE_CATEGORIES = [
  'worktrees',
  'branches',
  'jobs',
  'targets',
  'repositories',
  'panes',
] as const;
export type PruneCategory = (typeof PRUNE_CATEGORIES)[number];

export type PlanEntry =
  | {
      kind: 'worktree';
      repository: string;
      common_dir: string;
      path: string;
      branch: string | null;
      head: string;
      reason: string;
    }
  /** A registration whose path is gone: only the record goes. */
  | { kind: 'worktree-record'; repository: string; path: string; reason: string }
  | { kind: 'branch'; repository: string; common_dir: string; branch: string; head: string; reason: string }
  | { kind: 'repository-record'; path: string; reason: string }
  | { kind: 'job'; id: string; path: string; reason: string }
  | { kind: 'target'; path: string; checkout: string; bytes: number; reason: string }
  /** A Herdr pane the pane rule closes on its own (recheck by terminal id before the close). */
  | {
      kind: 'pane';
      pane: string;
      terminal_id: string;
      workspace: string;
      cwd: string | null;
      /** The program only, never its arguments. */
      program: string | null;
      reason: string;
    }
  /** A Herdr workspace whose every pane the pane rule closes: it closes whole. */
  | {
      kind: 'workspace';
      workspace: string;
      label: string;
      cwd: string | null;
      panes: Array<{ pane: string; terminal_id: string }>;
      reason: string;
    };

export const CATEGORY_OF: Record<PlanEntry['kind'], PruneCategory> = {
  worktree: 'worktrees',
  'worktree-record': 'worktrees',
  branch: 'branches',
  'repository-record': 'repositories',
  job: 'jobs',
  target: 'targets',
  pane: 'panes',
  workspace: 'panes',
};

/**
 * Removal order: checkouts first (they take their branches, build output, panes and workspace), then
 * whole workspaces before single panes, then the rest.
 */
const ORDER: PlanEntry['kind'][] = [
  'worktree',
  'worktree-record',
  'workspace',
  'pane',
  'branch',
  'repository-record',
  'job',
  'target',
];

/** The entries of the chosen categories (all when none is named), in removal order. */
export function selectPlan(entries: readonly PlanEntry[], categories: readonly PruneCategory[]): PlanEntry[] {
  const wanted = new Set(categories.length === 0 ? PRUNE_CATEGORIES : categories);
  return entries
    .filter((entry) => wanted.has(CATEGORY_OF[entry.kind]))
    .sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
}

export type Recheck =
  | { action: 'proceed' }
  /** Live work or a hold appeared: keep the entry, not a failure. */
  | { action: 'skip'; reason: string }
  /** Identity changed, the entry is missing, or the evidence cannot be read. */
  | { action: 'fail'; reason: string }
  /** Something else removed it: drop its registration and report it as already removed. */
  | { action: 'gone' };

export interface WorktreeNow {
  common_dir: string;
  /** Git's worktrees now: where each is and its branch. */
  listed: ReadonlyArray<{ path: string; branch: string | null }>;
  /** The worktree at the planned path, surveyed now; undefined when nothing is known there. */
  found?: { branch: string | null; head: string | null; exists: boolean; verdict: WorktreeVerdict };
}

const short = (sha: string | null): string => (sha === null ? 'none' : sha.slice(0, 10));

export function recheckWorktree(
  planned: Extract<PlanEntry, { kind: 'worktree' }>,
  now: WorktreeNow,
): Recheck {
  if (now.common_dir !== planned.common_dir) {
    return { action: 'fail', reason: `repository changed: ${planned.common_dir} is now ${now.common_dir}` };
  }
  const found = now.found;
  const listedHere = now.listed.some((worktree) => worktree.path === planned.path);
  if (!listedHere) {
    const moved =
      planned.branch === null ? undefined : now.listed.find((worktree) => worktree.branch === planned.branch);
    if (moved)
      return {
        action: 'fail',
        reason: `path changed: the worktree of ${planned.branch} is now ${moved.path}`,
      };
    if (found === undefined || !found.exists) return { action: 'gone' };
    return { action: 'skip', reason: found.verdict.reason };
  }
  if (found === undefined) return { action: 'fail', reason: 'the worktree could not be surveyed again' };
  if (found.branch !== planned.branch) {
    return {
      action: 'fail',
      reason: `branch changed: ${planned.branch ?? 'detached'} is now ${found.branch ?? 'detached'}`,
    };
  }
  if (found.head !== planned.head) {
    return {
      action: 'skip',
      reason: `HEAD moved after the plan (${short(planned.head)} → ${short(found.head)})`,
    };
  }
  const verdict = found.verdict;
  if (verdict.kind === 'removable') return { action: 'proceed' };
  if (verdict.kind === 'stale') return { action: 'gone' };
  // A checkout whose identity or status cannot be read is unreadable evidence, not live work; a
  // dogsled.toml that stopped loading is an error to fix. Neither is a skip.
  if (verdict.kind === 'kept' && FAILURE_REASONS.some((prefix) => verdict.reason.startsWith(prefix))) {
    return { action: 'fail', reason: verdict.reason };
  }
  return { action: 'skip', reason: verdict.reason };
}

export interface BranchNow {
  common_dir: string;
  /** The branch surveyed now; undefined when it no longer exists. */
  found?: { sha: string; verdict: BranchVerdict };
}

export function recheckBranch(planned: Extract<PlanEntry, { kind: 'branch' }>, now: BranchNow): Recheck {
  if (now.common_dir !== planned.common_dir) {
    return { action: 'fail', reason: `repository changed: ${planned.common_dir} is now ${now.common_dir}` };
  }
  if (now.found === undefined) return { action: 'fail', reason: `branch ${planned.branch} no longer exists` };
  if (now.found.sha !== planned.head) {
    return {
      action: 'skip',
      reason: `a new commit moved it (${short(planned.head)} → ${short(now.found.sha)})`,
    };
  }
  if (!now.found.verdict.removable) return { action: 'skip', reason: now.found.verdict.reason };
  return { action: 'proceed' };
}
