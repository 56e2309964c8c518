// items.json, queue.json and sweep.json as the lean readers glance at them (engine/glance-file.ts):
// each read once and checked by hand, only in the fields the short forms use (whose work an item or
// ticket is, whether it is open or settled, what a sweep pass counts). Anything in doubt is
// undefined, and the caller takes the full readers (queue-items.ts, sweep-files.ts), which
// quarantine a bad file and recover a backed-up one.

import type { Item } from '../../core/agents/item-types.js';
import type { SweepCounted } from '../../core/cleanup/sweep-rule.js';
import { isInt, isIntOrNull, isRecord, isStringOrNull } from '../../core/common/shape.js';
import { TICKET_STATES, type Ticket } from '../../core/placement/queue-types.js';
import { glanceJson } from '../engine/glance-file.js';
import type { StateIO } from '../io.js';

export type GlancedItem = Pick<Item, 'owner' | 'closed_ms' | 'orphaned'>;
export type GlancedTicket = Pick<Ticket, 'owner' | 'state'>;
/** What `send` resolves a target's name with (inbox/listing-targets.ts). */
export type GlancedNamedItem = Pick<Item, 'closed_ms' | 'host' | 'name' | 'terminal_id' | 'pane'>;

export interface WorkGlance {
  items: GlancedItem[];
  tickets: GlancedTicket[];
  /** The latest sweep pass's counted fields, or null when there is none. */
  sweep: SweepCounted | null;
}

/** This host's items, tickets and latest pass, or undefined when any of the three is in doubt. */
export function glanceWork(io: StateIO): WorkGlance | undefined {
  const items = glanceItems(io);
  const tickets = glanceTickets(io);
  const sweep = glanceSweep(io);
  if (items === undefined || tickets === undefined || sweep === undefined) return undefined;
  return { items, tickets, sweep };
}

/** This host's items (whose, open or not, orphaned or not), or undefined when in doubt. */
export function glanceItems(io: StateIO): GlancedItem[] | undefined {
  return listOf(io.paths.items, 'items', isItem);
}

/** This host's items in the fields a target's name is resolved with, or undefined when in doubt. */
export function glanceNamedItems(io: StateIO): GlancedNamedItem[] | undefined {
  return listOf(io.paths.items, 'items', isNamedItem);
}

/** This host's tickets (whose, in which state), or undefined when in doubt. */
export function glanceTickets(io: StateIO): GlancedTicket[] | undefined {
  return listOf(io.paths.queue, 'tickets', isTicket);
}

/** `{version: 1, <key>: [...]}` with every entry `ok`; [] without the file. */
function listOf<T>(path: string, key: string, ok: (entry: unknown) => entry is T): T[] | undefined {
  const glanced = glanceJson(path);
  if (glanced === undefined) return undefined;
  if (!glanced.found) return [];
  const value = glanced.value;
  if (!isRecord(value) || value.version !== 1) return undefined;
  const list = value[key];
  return Array.isArray(list) && list.every(ok) ? list : undefined;
}

function isItem(item: unknown): item is GlancedItem {
  return (
    isRecord(item) &&
    isStringOrNull(item.owner) &&
    isIntOrNull(item.closed_ms) &&
    (item.orphaned === undefined || item.orphaned === null || isOrphaned(item.orphaned))
  );
}

function isNamedItem(item: unknown): item is GlancedNamedItem {
  return (
    isRecord(item) &&
    isIntOrNull(item.closed_ms) &&
    typeof item.host === 'string' &&
    (item.name === undefined || isStringOrNull(item.name)) &&
    isStringOrNull(item.terminal_id) &&
    isStringOrNull(item.pane)
  );
}

function isOrphaned(value: unknown): boolean {
  return isRecord(value) && typeof value.reason === 'string' && isInt(value.since_ms);
}

function isTicket(ticket: unknown): ticket is GlancedTicket {
  return (
    isRecord(ticket) &&
    isStringOrNull(ticket.owner) &&
    (TICKET_STATES as readonly unknown[]).includes(ticket.state)
  );
}

/** sweep.json's counted fields (SweepPassSchema's types for them); null without the file. */
function glanceSweep(io: StateIO): SweepCounted | null | undefined {
  const glanced = glanceJson(io.paths.sweep);
  if (glanced === undefined) return undefined;
  if (!glanced.found) return null;
  const pass = glanced.value;
  if (!isRecord(pass) || pass.version !== 1 || !isStringOrNull(pass.error)) return undefined;
  const records = ['results', 'skipped', 'failures', 'unlinked', 'landed_dirty'] as const;
  if (!records.every((key) => isListOf(pass[key], isRecord))) return undefined;
  if (!isListOf(pass.warnings, (w) => typeof w === 'string')) return undefined;
  if (!(pass.orphans === undefined || isListOf(pass.orphans, isRecord))) return undefined;
  return pass as unknown as SweepCounted;
}

function isListOf(value: unknown, ok: (entry: unknown) => boolean): boolean {
  return Array.isArray(value) && value.every(ok);
}
