// Ticket lifecycle rules: pending -> admitting -> admitted | failed, and pending -> cancelled.
// `admitting` names the service that is launching it; a ticket found `admitting` under any other
// service was interrupted, and becomes an explicit failed ticket instead of a second launch.
// Settled tickets are kept 24 hours for inspection, like ended jobs.

import type { Ticket } from '../state/work-schemas.js';

export const TICKET_RETENTION_MS = 24 * 3_600_000;

export type Admitter = NonNullable<Ticket['admitter']>;

/** A new ticket as the caller asks for it: pending, settled by nobody yet. */
export function pendingTicket(
  ask: Pick<Ticket, 'id' | 'kind' | 'owner' | 'pin' | 'request' | 'waiting'>,
  now: number,
): Ticket {
  return {
    ...ask,
    created_ms: now,
    state: 'pending',
    state_ms: now,
    admitter: null,
    host: null,
    reservation: null,
    job: null,
    item: null,
    error: null,
    notice: null,
  };
}

export function isSettled(ticket: Pick<Ticket, 'state'>): boolean {
  return ticket.state === 'admitted' || ticket.state === 'failed' || ticket.state === 'cancelled';
}

/** Pending tickets oldest first: the FIFO order. */
export function pendingInOrder<T extends Pick<Ticket, 'state' | 'created_ms'>>(tickets: readonly T[]): T[] {
  // Array order is append order; the sort is stable, so equal timestamps keep it.
  return tickets.filter((t) => t.state === 'pending').sort((a, b) => a.created_ms - b.created_ms);
}

/** An `admitting` ticket whose admitter is not `current` was interrupted by a service restart. */
export function isInterrupted(ticket: Pick<Ticket, 'state' | 'admitter'>, current: Admitter): boolean {
  if (ticket.state !== 'admitting') return false;
  const admitter = ticket.admitter;
  return admitter === null || admitter.pid !== current.pid || admitter.started_ms !== current.started_ms;
}

export function interruptedFailure(ticket: Ticket, now: number): Ticket {
  const who = ticket.admitter ? ` (service pid ${ticket.admitter.pid})` : '';
  const job = ticket.job ? `; job ${ticket.job} may have started: inspect it, nothing is relaunched` : '';
  return {
    ...ticket,
    state: 'failed',
    state_ms: now,
    error: `admission interrupted: the service stopped while admitting it${who}${job}`,
    notice: ticket.waiting ? null : 'pending',
  };
}

/** Settled more than a day ago: dropped from queue.json. */
export function isExpiredTicket(ticket: Pick<Ticket, 'state' | 'state_ms'>, now: number): boolean {
  return isSettled(ticket) && now - ticket.state_ms > TICKET_RETENTION_MS;
}

/** Why `cancel` refuses a ticket, or null when it may cancel it. */
export function cancelRefusal(ticket: Pick<Ticket, 'id' | 'state'>): string | null {
  if (ticket.state === 'pending') return null;
  return `ticket ${ticket.id} is ${ticket.state}: cancel only cancels pending tickets`;
}
