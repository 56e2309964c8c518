// Waiting for a queued ticket to settle: only the service admits, so a `--wait` caller just reads
// queue.json (no lock: it is replaced atomically) until its ticket is admitted, failed or cancelled.
// Giving up (the signal, the command's deadline, or the caller's Ctrl-C) leaves the ticket pending:
// a wait never cancels, so the caller is told how the ticket stays and how to drop it.

import { setTimeout as sleep } from 'node:timers/promises';
import { DogsledError } from '../core/common/errors.js';
import type { Ticket } from '../core/placement/queue-types.js';
import { isSettled } from '../core/placement/tickets.js';
import type { StateIO } from '../state/io.js';
import { readQueue } from '../state/records/queue-items.js';
import type { Deadline } from '../time/deadline.js';

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

/** How a wait for a ticket ended: admitted, or given up (the ticket stays pending either way). */
export type TicketWait =
  | { kind: 'admitted'; ticket: AdmittedTicket }
  | { kind: 'gave-up'; why: 'deadline' | 'interrupted' };

/**
 * Runs a wait with a signal that aborts when the user interrupts it (SIGINT, SIGTERM), listening only
 * while the wait runs: the CLI's untilStopped (cli/stop-signal.ts). Without one, only the deadline
 * ends the wait.
 */
export type StopScope = <T>(run: (stopped: AbortSignal) => Promise<T>) => Promise<T>;

/**
 * `place --wait`, `run --wait` and `agent --wait` on a queued ticket: the admitted ticket, or why the
 * wait gave up first (the ticket stays pending, since a wait never cancels). A failed or cancelled
 * ticket is the caller's error.
 */
export async function awaitTicket(
  io: StateIO,
  id: string,
  deadline: Deadline,
  untilStopped?: StopScope,
): Promise<TicketWait> {
  const wait = async (stopped: AbortSignal | undefined): Promise<TicketWait> => {
    const expired = deadline.signal();
    const signal = stopped === undefined ? expired : AbortSignal.any([expired, stopped]);
    let settled: SettledTicket;
    try {
      settled = await waitForTicket(io, id, { signal });
    } catch (error) {
      if (stopped?.aborted) return { kind: 'gave-up', why: 'interrupted' };
      if (signal.aborted) return { kind: 'gave-up', why: 'deadline' };
      throw error;
    }
    if (settled.state === 'failed') {
      throw new DogsledError(`ticket ${id} failed: ${settled.error ?? 'no reason given'}`);
    }
    if (settled.state === 'cancelled') throw new DogsledError(`ticket ${id} was cancelled`);
    return { kind: 'admitted', ticket: settled as AdmittedTicket };
  };
  return untilStopped === undefined ? wait(undefined) : untilStopped((stopped) => wait(stopped));
}
