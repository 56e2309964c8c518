// Waiting for a queued ticket to settle: only the service admits, so a `--wait` caller just reads
// queue.json (no lock: it is replaced atomically) until its ticket is admitted, failed or cancelled.
// Giving up (the signal, or the command's deadline) leaves the ticket pending: a wait never cancels.

import { setTimeout as sleep } from 'node:timers/promises';
import { isSettled } from '../core/tickets.js';
import { DogsledError } from '../errors.js';
import type { StateIO } from '../state/io.js';
import { readQueue } from '../state/work.js';
import type { Ticket } from '../state/work-schemas.js';
import type { Deadline } from './deadline.js';

/** How often the queue is read again; admission takes at least one service tick anyway. */
export const TICKET_POLL_MS = 200;

export type SettledTicket = Ticket & { state: 'admitted' | 'failed' | 'cancelled' };

/** Resolves with the ticket once settled; rejects with `signal.reason` when aborted. */
export async function waitForTicket(
  io: StateIO,
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

export type AdmittedTicket = SettledTicket & { state: 'admitted' };

/**
 * `place --wait` and `run --wait` on a queued ticket: the admitted ticket, or undefined when the
 * deadline came first (the ticket stays pending, since a wait never cancels). A failed or cancelled
 * ticket is the caller's error.
 */
export async function awaitTicket(
  io: StateIO,
  id: string,
  deadline: Deadline,
): Promise<AdmittedTicket | undefined> {
  const signal = deadline.signal();
  let settled: SettledTicket;
  try {
    settled = await waitForTicket(io, id, { signal });
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
  if (settled.state === 'failed') {
    throw new DogsledError(`ticket ${id} failed: ${settled.error ?? 'no reason given'}`);
  }
  if (settled.state === 'cancelled') throw new DogsledError(`ticket ${id} was cancelled`);
  return settled as AdmittedTicket;
}
