// The stop gate (spec, "Prompt context and integrations"): before an owner stops, a reminder about
// its finished children with work to land, once per distinct set of them, across restarts. A set is
// the child item ids with their commit counts and dirty states; row order and idle/done transitions
// do not make a new set, new commits or a new dirty state do. Closing every owner item clears the
// history. Pure: the hooks read items, panes and gate.json, and write what gateStep decides.

import type { Item } from '../state/work-schemas.js';

/** The facts of an agent pane the gate reads (a subset of a snapshot's agent pane). */
export interface LandFacts {
  pane: string;
  terminal_id: string;
  name: string | null;
  state: string;
  branch: string | null;
  ahead: number | null;
  dirty: boolean | null;
  landed: boolean | null;
}

/** One TO LAND row: a finished child whose branch holds commits or changes its owner has not landed. */
export interface LandRow {
  item: string;
  name: string;
  branch: string | null;
  ahead: number;
  dirty: boolean;
}

/** How many set keys an owner's history keeps; older sets may remind again, which is harmless. */
export const GATE_HISTORY_MAX = 20;
/** Rows named in one reminder; the rest are counted. */
const REMINDER_ROWS = 10;

const FINISHED = new Set(['idle', 'done']);

/** The pane facts that belong to an item: by terminal first (a moved pane keeps it), else by pane. */
export function factsFor<T extends Pick<LandFacts, 'pane' | 'terminal_id'>>(
  item: Pick<Item, 'pane' | 'terminal_id'>,
  panes: readonly T[],
): T | undefined {
  if (item.terminal_id !== null) {
    const byTerminal = panes.find((p) => p.terminal_id === item.terminal_id);
    if (byTerminal) return byTerminal;
  }
  return item.pane === null ? undefined : panes.find((p) => p.pane === item.pane);
}

/**
 * The owner's TO LAND rows: open agent items whose child is idle or done with commits ahead of the
 * default branch or uncommitted changes, and not landed. Working children and clean ones never count.
 */
export function toLandRows(items: readonly Item[], panes: readonly LandFacts[], owner: string): LandRow[] {
  const rows: LandRow[] = [];
  for (const item of items) {
    if (item.kind !== 'agent' || item.owner !== owner || item.closed_ms !== null) continue;
    const facts = factsFor(item, panes);
    if (!facts || !FINISHED.has(facts.state) || facts.landed === true) continue;
    const ahead = facts.ahead ?? 0;
    const dirty = facts.dirty === true;
    if (ahead === 0 && !dirty) continue;
    rows.push({ item: item.id, name: facts.name ?? facts.pane, branch: facts.branch, ahead, dirty });
  }
  return rows.sort((a, b) => (a.item < b.item ? -1 : a.item > b.item ? 1 : 0));
}

/** The set's identity: ids with commit counts and dirty states, independent of row order. */
export function gateKey(rows: readonly LandRow[]): string {
  return rows
    .map((row) => `${row.item}:${row.ahead}:${row.dirty ? 'dirty' : 'clean'}`)
    .sort()
    .join(',');
}

export interface GateStep {
  remind: boolean;
  /** The owner's new history; null removes it (no open items). */
  next: string[] | null;
  changed: boolean;
}

/** Whether this stop gets a reminder, and the history to keep. */
export function gateStep(
  history: readonly string[] | undefined,
  rows: readonly LandRow[],
  openItems: number,
): GateStep {
  const kept = history === undefined ? null : [...history];
  if (openItems === 0) return { remind: false, next: null, changed: history !== undefined };
  if (rows.length === 0) return { remind: false, next: kept, changed: false };
  const key = gateKey(rows);
  if (history?.includes(key)) return { remind: false, next: kept, changed: false };
  return { remind: true, next: [...(history ?? []), key].slice(-GATE_HISTORY_MAX), changed: true };
}

function rowText(row: LandRow, clean: (text: string) => string): string {
  const parts = [row.branch === null ? 'detached' : `branch ${clean(row.branch)}`];
  if (row.ahead > 0) parts.push(`${row.ahead} commit${row.ahead === 1 ? '' : 's'} to land`);
  if (row.dirty) parts.push('uncommitted changes');
  return `- ${clean(row.name)}: ${parts.join(', ')}`;
}

/** The reminder itself. It asks; it never commits, merges, closes or discards anything. */
export function gateReminder(rows: readonly LandRow[], clean: (text: string) => string): string {
  const count = rows.length === 1 ? '1 finished child has' : `${rows.length} finished children have`;
  const lines = [`Before you stop: ${count} work to land.`];
  for (const row of rows.slice(0, REMINDER_ROWS)) lines.push(rowText(row, clean));
  if (rows.length > REMINDER_ROWS) lines.push(`- and ${rows.length - REMINDER_ROWS} more (dogsled board)`);
  lines.push(
    'Review each one, ask a child with uncommitted changes to commit, and integrate its branch; or say ' +
      'explicitly what blocks or defers it. dogsled has committed, merged, closed and discarded nothing.',
  );
  return lines.join('\n');
}
