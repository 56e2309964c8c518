// `dogsled items`: this host's items.json and queue.json, optionally of one owner pane. Reads take
// no lock: writers replace the files whole.

import type { Item } from '../core/agents/item-types.js';
import { DogsledError } from '../core/common/errors.js';
import { type OwnedWork, ownedWork } from '../core/placement/owned-work.js';
import type { Ticket } from '../core/placement/queue-types.js';
import type { StateIO } from '../state/io.js';
import { readItems, readQueue } from '../state/records/queue-items.js';

export type { Item, OwnedWork, Ticket };

/** Every item and ticket, or with `owner` only that pane's. */
export async function readOwnedWork(io: StateIO, owner?: string): Promise<OwnedWork> {
  // `--owner "$HERDR_PANE_ID"` outside any pane: no pane is named "", so it would list nothing,
  // not the caller's own work (whose owner is null).
  if (owner === '') {
    throw new DogsledError('--owner is empty: name a pane (outside Herdr and tmux, leave --owner out)');
  }
  const [items, queue] = await Promise.all([readItems(io), readQueue(io)]);
  return ownedWork(items.items, queue.tickets, owner);
}
