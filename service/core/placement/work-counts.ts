// The counts the short forms show of this host's work (status --brief, the prompt context's fleet
// lines): open items, unsettled tickets and the orphaned children the service keeps open. Pure, so
// the full readers and the lean ones count alike.

import type { Item } from '../agents/item-types.js';
import type { Ticket } from './queue-types.js';
import { isSettled } from './tickets.js';

export interface WorkCounts {
  openItems: number;
  pendingTickets: number;
  /** Orphaned children the service keeps open on this host (core/orphans.ts). */
  orphaned: number;
}

export function workCounts(
  items: ReadonlyArray<Pick<Item, 'closed_ms' | 'orphaned'>>,
  tickets: ReadonlyArray<Pick<Ticket, 'state'>>,
): WorkCounts {
  const open = items.filter((item) => item.closed_ms === null);
  return {
    openItems: open.length,
    pendingTickets: tickets.filter((ticket) => !isSettled(ticket)).length,
    orphaned: open.filter((item) => item.orphaned).length,
  };
}
