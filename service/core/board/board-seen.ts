// Dismissing an ATTENTION row (`board --dismiss ID`, the sidebar's `d`): which row an id names, and
// how long a dismissal is kept. A dismissal names the row's state (kind, id, since_ms), so it
// outlives nothing it should not: a new failure of the same job starts a new state and shows again.

import { type BoardRow, GROUP_TITLES } from './board-rule.js';

/** Kept this long after it was made: longer than any ATTENTION row stays on a board. */
export const SEEN_KEEP_MS = 30 * 24 * 3_600_000;
/** At most this many dismissals are kept, newest first: a bound on the file, whatever the rate. */
export const SEEN_MAX = 2_000;

export type DismissTarget =
  | { kind: 'row'; row: BoardRow }
  | { kind: 'seen'; row: BoardRow }
  | { kind: 'refused'; reason: string };

/** The row `id` names (a job, ticket or item id, or the row's own id) among an owner's rows. */
export function dismissTarget(rows: readonly BoardRow[], id: string, owner: string): DismissTarget {
  const named = rows.filter((r) => r.id === id || r.job === id || r.ticket === id || r.item === id);
  const open = named.find((r) => r.group === 'attention');
  if (open) return { kind: 'row', row: open };
  const seen = named.find((r) => r.seen_ms !== null);
  if (seen) return { kind: 'seen', row: seen };
  const other = named[0];
  if (other) {
    return {
      kind: 'refused',
      reason: `${other.kind} ${other.id} is in ${GROUP_TITLES[other.group]}: only ATTENTION rows are dismissed`,
    };
  }
  return { kind: 'refused', reason: `no row ${id} on the board of ${owner}` };
}

/** The dismissals still worth keeping at `now`: recent ones, newest `SEEN_MAX` at most. */
export function keptSeen<T extends { seen_ms: number }>(entries: readonly T[], now: number): T[] {
  return entries
    .filter((entry) => entry.seen_ms >= now - SEEN_KEEP_MS)
    .sort((a, b) => b.seen_ms - a.seen_ms)
    .slice(0, SEEN_MAX);
}
