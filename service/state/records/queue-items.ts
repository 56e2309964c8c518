// Reading and changing queue.json and items.json. Reads take no lock (writers replace the files
// atomically); every change is a read-modify-write under the file's lock. Lock order: queue.json
// before items.json, never the reverse (lock.ts). items.json is judged by its hand check, equal to
// ItemsSchema (checks/queue-items-check.ts): every launch appends to it.

import type { Item, Items } from '../../core/agents/item-types.js';
import { DogsledError } from '../../core/common/errors.js';
import type { Queue, Ticket } from '../../core/placement/queue-types.js';
import { squeezedLine } from '../../core/text/clean.js';
import { ItemsAppendedCheck, ItemsCheck } from '../checks/queue-items-check.js';
import { updateNow } from '../engine/update-now.js';
import type { StateIO } from '../io.js';
import { backupOf, STATE_FILE_MODE } from '../paths.js';

// The store (with the waiting lock and proper-lockfile) and QueueSchema (zod) are imported where they
// are used: every launch appends its item at once (appendItem), and that path loads neither.
const store = () => import('../engine/store.js');
const queueSchema = async () => (await import('../schemas/queue-items-schemas.js')).QueueSchema;

const EMPTY_QUEUE: Queue = { version: 1, tickets: [] };
const EMPTY_ITEMS: Items = { version: 1, items: [] };

export async function readQueue(io: StateIO): Promise<Queue> {
  return (await (await store()).readState(io.paths.queue, await queueSchema(), io)) ?? EMPTY_QUEUE;
}

export async function readItems(io: StateIO): Promise<Items> {
  return (await (await store()).readState(io.paths.items, ItemsCheck, io)) ?? EMPTY_ITEMS;
}

/** `fn` returns the result and, when it changed anything, the new queue. */
export async function updateQueue<R>(
  io: StateIO,
  fn: (queue: Queue) => Promise<{ result: R; next?: Queue }> | { result: R; next?: Queue },
): Promise<R> {
  const { updateState } = await store();
  return updateState(io.paths.queue, await queueSchema(), io, (current) => fn(current ?? EMPTY_QUEUE));
}

export async function updateItems<R>(
  io: StateIO,
  fn: (items: Items) => Promise<{ result: R; next?: Items }> | { result: R; next?: Items },
): Promise<R> {
  const { updateState } = await store();
  return updateState(io.paths.items, ItemsCheck, io, (current) => fn(current ?? EMPTY_ITEMS));
}

/**
 * Adds `item` to items.json. Every launch does, on its caller's path: at once where the lock is free
 * (update-now.ts, the backup first, synced as always), else through the waiting writer.
 */
export async function appendItem(io: StateIO, item: Item): Promise<void> {
  const append = (current: Items | undefined) => {
    const items = current ?? EMPTY_ITEMS;
    return { result: undefined, next: { ...items, items: [...items.items, item] } };
  };
  const file = io.paths.items;
  // The read judges the list whole; the write only the item appended to it (ItemsAppendedCheck).
  const options = {
    mode: STATE_FILE_MODE,
    durable: true,
    backup: backupOf(file),
    writeCheck: ItemsAppendedCheck,
  };
  if (!io.signal?.aborted && updateNow(file, ItemsCheck, options, append) !== undefined) return;
  await updateItems(io, append);
}

/** Replaces ticket `id` with `change(ticket)`; the ticket must exist. */
export async function changeTicket(
  io: StateIO,
  id: string,
  change: (ticket: Ticket) => Ticket,
): Promise<Ticket> {
  return updateQueue(io, (queue) => {
    const index = queue.tickets.findIndex((ticket) => ticket.id === id);
    const ticket = queue.tickets[index];
    if (ticket === undefined) throw new DogsledError(`unknown ticket "${squeezedLine(id)}"`);
    const changed = change(ticket);
    const tickets = queue.tickets.slice();
    tickets[index] = changed;
    return { result: changed, next: { ...queue, tickets } };
  });
}

/** The ticket named `id`, or a one-line error naming it. */
export function findTicket(queue: Queue, id: string): Ticket {
  const ticket = queue.tickets.find((t) => t.id === id);
  if (ticket === undefined) throw new DogsledError(`unknown ticket "${squeezedLine(id)}"`);
  return ticket;
}
