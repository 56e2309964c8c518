// items.json, queue.json and sweep.json as the lean readers glance at them (engine/glance-file.ts):
// each read once and checked by hand, only in the fields the short forms use (whose work an item or
// ticket is, whether it is open or settled, what a sweep pass counts), or whole for the forms that
// print the records (`items --json`, `board --json`). Anything in doubt is
// undefined, and the caller takes the full readers (queue-items.ts, sweep-files.ts), which
// quarantine a bad file and recover a backed-up one.

import type { Item } from '../../core/agents/item-types.js';
import type { SweepCounted } from '../../core/cleanup/sweep-rule.js';
import { isInt, isIntOrNull, isRecord, isStringOrNull } from '../../core/common/shape.js';
import { TICKET_STATES, type Ticket } from '../../core/placement/queue-types.js';
import { ItemsCheck, QueueCheck } from '../checks/queue-items-check.js';
import { glanceJson, glanceRecord } from '../engine/glance-file.js';
import type { StateIO } from '../io.js';

export type GlancedItem = Pick<Item, 'owner' | 'closed_ms' | 'orphaned'>;
export type GlancedTicket = Pick<Ticket, 'owner' | 'state'>;

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

/**
 * This host's items, checked by hand as ItemsSchema checks them (queue-items-check.ts), as readItems
 * gives them ([] without the file); undefined when in doubt.
 */
export function glanceItemRecords(io: StateIO): Item[] | undefined {
  const items = glanceRecord(io.paths.items, ItemsCheck);
  if (items === undefined) return undefined;
  return items.found ? items.value.items : [];
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

/**
 * items.json and queue.json whole, checked by hand as their schemas check them (queue-items-check.ts),
 * as readItems and readQueue would give them; undefined when either is in doubt.
 */
export function glanceWorkRecords(io: StateIO): { items: Item[]; tickets: Ticket[] } | undefined {
  const items = glanceRecord(io.paths.items, ItemsCheck);
  const queue = glanceRecord(io.paths.queue, QueueCheck);
  if (items === undefined || queue === undefined) return undefined;
  return {
    items: items.found ? items.value.items : [],
    tickets: queue.found ? queue.value.tickets : [],
  };
}
