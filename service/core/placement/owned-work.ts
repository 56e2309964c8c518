// The work `items` lists: every item and ticket, or with an owner pane only that pane's. Pure; the
// full reader (actions/items.ts) and the lean one (actions/items-glance.ts) both filter through it.

import type { Item } from '../agents/item-types.js';
import type { Ticket } from './queue-types.js';

export interface OwnedWork {
  items: Item[];
  queue: Ticket[];
}

export function ownedWork(items: readonly Item[], tickets: readonly Ticket[], owner?: string): OwnedWork {
  const owned = <T extends { owner: string | null }>(list: readonly T[]): T[] =>
    owner === undefined ? [...list] : list.filter((entry) => entry.owner === owner);
  return { items: owned(items), queue: owned(tickets) };
}
