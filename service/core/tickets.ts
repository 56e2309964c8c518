// Ticket lifecycle rules: pending -> admitting -> admitted | failed, and pending -> cancelled.
// `admitting` names the service that is launching it; a ticket found `admitting` under any other
// service was interrupted. It is never launched again: the restarted service settles it from what
// its job record shows (settleInterrupted), admitted when the job started and failed, with the
// reason, when it did not. Settled tickets are kept 24 hours for inspection, like ended jobs.

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

/** What an interrupted admission left behind, as the restarted service reads it from the job record. */
export type LaunchEvidence =
  /** A `place` ticket: its reservation, written together with the claim, is its whole admission. */
  | { kind: 'placement' }
  /** No job record: the service stopped before it created the job, so nothing ran. */
  | { kind: 'no-record' }
  /** exec claimed the record: the job started, once. */
  | { kind: 'started' }
  /** The record ended without a start: its launch failed, or it was ended as never started. */
  | { kind: 'not-started'; reason: string | null }
  /** The record could not be read: whether the job started is unknown. */
  | { kind: 'unknown'; why: string };

/**
 * The reason written on a job record that an interrupted admission created but exec had not claimed:
 * it ends at once (under the record's lock, so exec then refuses it and nothing runs twice).
 */
export function interruptedNeverStarted(ticket: Pick<Ticket, 'admitter'>): string {
  return `never started: the service${serviceOf(ticket)} stopped while launching it`;
}

/** The ticket an interrupted admission settles as, from its evidence. */
export function settleInterrupted(ticket: Ticket, evidence: LaunchEvidence, now: number): Ticket {
  const notice = ticket.waiting ? null : 'pending';
  if (evidence.kind === 'started' || evidence.kind === 'placement') {
    return { ...ticket, state: 'admitted', state_ms: now, notice };
  }
  const job = ticket.job ?? 'its job';
  const stopped = `admission interrupted: the service${serviceOf(ticket)} stopped`;
  const error =
    evidence.kind === 'no-record'
      ? `${stopped} before ${job} was created; nothing ran`
      : evidence.kind === 'not-started'
        ? `${job}: ${evidence.reason ?? 'ended before it started'}`
        : `${stopped} while admitting it; ${job} may have started (${evidence.why}): inspect it, nothing is relaunched`;
  return { ...ticket, state: 'failed', state_ms: now, error, notice };
}

function serviceOf(ticket: Pick<Ticket, 'admitter'>): string {
  return ticket.admitter ? ` (pid ${ticket.admitter.pid})` : '';
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
