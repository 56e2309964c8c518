// The stop gate (spec, "Prompt context and integrations"): before an owner stops, a reminder about
// its finished children with work to land, once per distinct set of them, across restarts. A set is
// the child item ids with their commit counts and dirty states; row order and idle/done transitions
// do not make a new set, new commits or a new dirty state do. The rows are the owner's TO LAND rows
// (core/to-land.ts), closed children's included; the history is cleared once the owner has neither
// open items nor rows. Pure: the hooks read the rows and gate.json, and write what gateStep decides.

import { clip } from '../text/clean.js';
import type { LandRow } from './to-land-rule.js';

/** How many set keys an owner's history keeps; older sets may remind again, which is harmless. */
export const GATE_HISTORY_MAX = 20;
/** Rows named in one reminder; the rest are counted. */
const REMINDER_ROWS = 10;
/** A child's name and branch are cut to these lengths: the reminder's size stays bounded. */
const NAME_CHARS = 60;
const BRANCH_CHARS = 120;

/** The set's identity: ids with commit counts and dirty states, independent of row order. */
export function gateKey(rows: readonly LandRow[]): string {
  return rows
    .map((row) => `${row.item}:${row.ahead}:${row.dirty ? 'dirty' : 'clean'}`)
    .sort()
    .join(',');
}

export interface GateStep {
  remind: boolean;
  /** The owner's new history; null removes it (no open items, nothing to land). */
  next: string[] | null;
  changed: boolean;
}

/**
 * Whether this stop gets a reminder, and the history to keep. An owner with no open items and
 * nothing to land starts over; closing a child that still has work to land does not (its row stays,
 * so the same set is not repeated).
 */
export function gateStep(
  history: readonly string[] | undefined,
  rows: readonly LandRow[],
  openItems: number,
): GateStep {
  const kept = history === undefined ? null : [...history];
  if (openItems === 0 && rows.length === 0)
    return { remind: false, next: null, changed: history !== undefined };
  if (rows.length === 0) return { remind: false, next: kept, changed: false };
  const key = gateKey(rows);
  if (history?.includes(key)) return { remind: false, next: kept, changed: false };
  return { remind: true, next: [...(history ?? []), key].slice(-GATE_HISTORY_MAX), changed: true };
}

function rowText(row: LandRow, clean: (text: string) => string): string {
  const parts = [`branch ${clip(clean(row.branch), BRANCH_CHARS)}`];
  if (row.ahead > 0) parts.push(`${row.ahead} commit${row.ahead === 1 ? '' : 's'} to land`);
  if (row.dirty) parts.push('uncommitted changes');
  const where = row.host === 'local' ? '' : ` on ${clip(clean(row.host), NAME_CHARS)}`;
  return `- ${clip(clean(row.name), NAME_CHARS)}${where}: ${parts.join(', ')}`;
}

/** The reminder itself. It asks; it never commits, merges, closes or discards anything. */
export function gateReminder(rows: readonly LandRow[], clean: (text: string) => string): string {
  const count = rows.length === 1 ? '1 finished child has' : `${rows.length} finished children have`;
  const lines = [`Before you stop: ${count} work to land.`];
  for (const row of rows.slice(0, REMINDER_ROWS)) lines.push(rowText(row, clean));
  if (rows.length > REMINDER_ROWS) lines.push(`- and ${rows.length - REMINDER_ROWS} more (dogsled board)`);
  lines.push(
    'Review each one, ask a child with uncommitted changes to commit, and integrate its branch; or say ' +
      'explicitly what blocks or defers it. This reminder commits, merges, closes and discards nothing.',
  );
  return lines.join('\n');
}
