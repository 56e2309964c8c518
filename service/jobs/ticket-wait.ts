// Waiting for a queued ticket to settle: only the service admits, so a `--wait` caller just reads
// queue.json (no lock: it is replaced atomically) until its ticket is admitted, failed or cancelled.
// Giving up (the signal) leaves the ticket pending: a wait never cancels.

import { setTimeout as sleep } from 'node:timers/promises';
import { isSettled } from '../core/tickets.js';
import { DogsledError } from '../errors.js';
import { readQueue, type WorkIO } from '../state/work.js';
import type { Ticket } from '../state/work-schemas.js';

/** How often the queue is read again; admission takes at least one service tick anyway. */
export const TICKET_POLL_MS = 200;

export type SettledTicket = Ticket & { state: 'admitted' | 'failed' | 'cancelled' };

/** Resolves with the ticket once settled; rejects with `signal.reason` when aborted. */
export async function waitForTicket(
  io: WorkIO,
  id: string,
  options: { signal?: AbortSignal; pollMs?: number } = {},
): Promise<SettledTicket> {
  const { signal } = options;
  for (;;) {
    signal?.throwIfAborted();
    const ticket = (await readQueue(io)).tickets.find((entry) => entry.id === id);
    if (ticket === undefined) throw new DogsledError(`ticket ${id} is no longer in the queue`);
    if (isSettled(ticket)) return ticket as SettledTicket;
    await sleep(options.pollMs ?? TICKET_POLL_MS, undefined, signal ? { signal } : {}).catch(() => {});
  }
}
