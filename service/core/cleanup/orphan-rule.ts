// Orphaned children (spec, "The sweep in serve"): a child that called `dogsled done`, whose owner is
// gone, and whose checkout passes the shared loss rule is closed like `close` would; one that is
// working, blocked, of unknown state or on an unreachable host stays open with its reason (dirty and
// unpushed checkouts are refused by the close itself, whose refusal becomes the reason). Pure.

import type { Item } from '../agents/item-types.js';

/** What Herdr shows where the child runs. */
export type ChildPane =
  | { kind: 'gone' }
  /** A pane with no agent in it any more (the harness exited or crashed after `done`). */
  | { kind: 'shell' }
  | { kind: 'agent'; status: string; turnEnded: boolean };

export interface OrphanFacts {
  item: Pick<Item, 'id' | 'kind' | 'host' | 'closed_ms'>;
  /** The child called done: a mark that still stands; `unknown` for a child on another host. */
  done: boolean | 'unknown';
  /** The owner's pane is still in Herdr. */
  ownerHere: boolean;
  /** The child's host: this one, a peer that answers, or a peer that does not. */
  host: 'local' | 'reachable' | 'unreachable';
  pane: ChildPane;
}

export type OrphanVerdict = { kind: 'none' } | { kind: 'close' } | { kind: 'keep'; reason: string };

const NONE: OrphanVerdict = { kind: 'none' };

export function orphanVerdict(facts: OrphanFacts): OrphanVerdict {
  const { item } = facts;
  if (item.closed_ms !== null || item.kind !== 'agent') return NONE;
  if (facts.done === false || facts.ownerHere) return NONE;
  // A child there cannot be seen from here, so it can be neither judged done nor closed.
  if (facts.host === 'unreachable') return { kind: 'keep', reason: `host ${item.host} is unreachable` };
  // That host's service judges its own children.
  if (facts.host === 'reachable' || facts.done === 'unknown') return NONE;
  const pane = facts.pane;
  // The pane went by itself: the completion worker closes the item.
  if (pane.kind === 'gone') return NONE;
  if (pane.kind === 'shell') return { kind: 'close' };
  if (pane.status === 'working') return { kind: 'keep', reason: 'working' };
  if (pane.status === 'blocked') return { kind: 'keep', reason: 'blocked' };
  if (pane.status !== 'idle' && pane.status !== 'done') return { kind: 'keep', reason: 'state unknown' };
  // Still the turn that marked: the finish worker ends it (and captures the reply) first.
  if (!pane.turnEnded) return NONE;
  return { kind: 'close' };
}

/** The close reason of an item the service closed as an orphan. */
export const ORPHAN_CLOSED = 'orphaned: owner gone, closed';

/** Why an orphan stays open, as status shows it: `orphaned: dirty: 2 paths`. */
export function orphanedText(reason: string): string {
  return `orphaned: ${reason}`;
}

/** One line per orphan for every check-in on this host: `name (w9:p1): orphaned: working`. */
export function orphanLines(items: readonly Item[]): string[] {
  return items.flatMap((item) => {
    if (item.closed_ms !== null || !item.orphaned) return [];
    const who = item.name ?? item.id;
    const where = item.pane === null ? item.host : item.pane;
    return [`${who} (${where}): ${orphanedText(item.orphaned.reason)}`];
  });
}

/** Open items the service keeps open as orphans. */
export function orphanedCount(items: readonly Item[]): number {
  return items.filter((item) => item.closed_ms === null && item.orphaned).length;
}
