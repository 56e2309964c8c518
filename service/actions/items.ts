// `dogsled items`: this host's items.json and queue.json, optionally of one owner pane. Reads take
// no lock: writers replace the files whole.

import type { Item } from '../core/agents/item-types.js';
import { DogsledError } from '../core/common/errors.js';
import type { Ticket } from '../core/placement/queue-types.js';
import type { StateIO } from '../state/io.js';
import { readItems, readQueue } from '../state/records/queue-items.js';

export type { Item, Ticket };

export interface OwnedWork {
  items: Item[];
  queue: Ticket[];
}

/** Every item and ticket, or with `owner` only that pane's. */
export async function readOwnedWork(io: StateIO, owner?: string): Promise<OwnedWork> {
  // `--owner "$HERDR_PANE_ID"` outside any pane: no pane is named "", so it would list nothing,
  // not the caller's own work (whose owner is null).
  if (owner === '') {
    throw new DogsledError('--owner is empty: name a pane (outside Herdr and tmux, leave --owner out)');
  }
  const [items, queue] = await Promise.all([readItems(io), readQueue(io)]);
  const owned = <T extends { owner: string | null }>(list: readonly T[]): T[] =>
    owner === undefined ? [...list] : list.filter((entry) => entry.owner === owner);
  return { items: owned(items.items), queue: owned(queue.tickets) };
}
