// When the service closes an item (spec, "Items and closing"): a job item when its job has ended, any
// item when its pane is gone from a Herdr listing that answered. Closed items are kept 24 hours,
// except a child's item whose branch still has work to land: its TO LAND row comes from the item, so
// it stays until the branch is integrated or deleted, whatever its age. Pure: the completion worker
// gathers the records, the terminal listing and the branch observations, and applies what these decide.

import { endToken, type JobOutcome } from '../jobs/job-status.js';
import type { Item, Items } from './item-types.js';

export const ITEM_RETENTION_MS = 24 * 3_600_000;
export const PANE_GONE = 'pane gone';
export const JOB_RECORD_GONE = 'job record gone';

/** The panes and terminals of one Herdr listing that answered. */
export interface SeenPanes {
  panes: ReadonlySet<string>;
  terminals: ReadonlySet<string>;
}

export interface Closure {
  id: string;
  reason: string;
}

export function isOpen(item: Pick<Item, 'closed_ms'>): boolean {
  return item.closed_ms === null;
}

export function jobEndedReason(job: JobOutcome): string {
  return `job ended (${endToken(job)})`;
}

/**
 * True when Herdr shows neither the item's terminal nor its pane. An item without either (a headless
 * job, or one whose pane is not recorded yet) is never judged by panes: only its job's end closes it.
 */
export function paneGone(item: Pick<Item, 'pane' | 'terminal_id'>, seen: SeenPanes): boolean {
  if (item.pane === null && item.terminal_id === null) return false;
  if (item.terminal_id !== null && seen.terminals.has(item.terminal_id)) return false;
  if (item.pane !== null && seen.panes.has(item.pane)) return false;
  return true;
}

/** What the service last saw of a child's branch (branches.json), as far as expiry cares. */
export interface BranchToLand {
  item: string;
  ahead: number;
  dirty: boolean;
  /** Integrated into the default branch, or deleted. */
  landed: boolean;
}

/**
 * The items that outlive retention because their branch still has something to land: an agent item
 * with a branch whose observation says so, or that was never observed yet (a doubtful case is kept).
 */
export function itemsHoldingBranches(
  items: readonly Pick<Item, 'id' | 'kind' | 'branch' | 'repository'>[],
  branches: readonly BranchToLand[],
): Set<string> {
  const seen = new Map(branches.map((branch) => [branch.item, branch]));
  const held = new Set<string>();
  for (const item of items) {
    if (item.kind !== 'agent' || !item.branch || !item.repository) continue;
    const branch = seen.get(item.id);
    if (branch === undefined || (!branch.landed && (branch.ahead > 0 || branch.dirty))) held.add(item.id);
  }
  return held;
}

export function isExpiredItem(
  item: Pick<Item, 'id' | 'closed_ms'>,
  now: number,
  holding: ReadonlySet<string>,
): boolean {
  return item.closed_ms !== null && now - item.closed_ms > ITEM_RETENTION_MS && !holding.has(item.id);
}

/**
 * The terminals whose agent reports (agent-reports/) expire with their items: named by an item that
 * expires now and by no item that stays (open, closed within the retention, or holding a TO LAND
 * row). Run before the items are dropped: afterwards nothing says whose a report was.
 */
export function expiredReportTerminals(
  items: readonly Pick<Item, 'id' | 'closed_ms' | 'terminal_id'>[],
  now: number,
  holding: ReadonlySet<string>,
): string[] {
  const kept = new Set<string>();
  const expiring = new Set<string>();
  for (const item of items) {
    if (item.terminal_id === null) continue;
    (isExpiredItem(item, now, holding) ? expiring : kept).add(item.terminal_id);
  }
  return [...expiring].filter((terminal) => !kept.has(terminal));
}

/**
 * items.json after closing `closures` (only items still open: a close never rewrites an earlier one)
 * and dropping items closed more than a day ago, but those in `holding` (itemsHoldingBranches);
 * `changed` is false when there is nothing to write.
 */
export function applyClosures(
  items: Items,
  closures: readonly Closure[],
  now: number,
  holding: ReadonlySet<string>,
): { next: Items; closed: Item[]; changed: boolean } {
  const reasons = new Map(closures.map((c) => [c.id, c.reason]));
  const closed: Item[] = [];
  const kept: Item[] = [];
  let dropped = 0;
  for (const item of items.items) {
    if (isExpiredItem(item, now, holding)) {
      dropped += 1;
      continue;
    }
    const reason = reasons.get(item.id);
    if (reason === undefined || !isOpen(item)) {
      kept.push(item);
      continue;
    }
    const shut = { ...item, closed_ms: now, close_reason: reason };
    closed.push(shut);
    kept.push(shut);
  }
  return { next: { ...items, items: kept }, closed, changed: closed.length > 0 || dropped > 0 };
}
