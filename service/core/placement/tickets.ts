// The ticket lifecycle, and its one owner: pending -> admitting -> admitted | failed, pending ->
// failed (a pin no host answers to) and pending -> cancelled. Every state change of a ticket is
// made by a function here (pendingTicket, claimTicket, admitTicket, failTicket, cancelTicket,
// settleInterrupted); callers only write the result under the queue lock. `admitting` names the
// service that is launching it; a ticket found `admitting` under any other service was interrupted.
// It is never launched again: the restarted service settles it from what its job record shows,
// admitted when the job started and failed, with the reason, when it did not. Settled tickets are
// kept 24 hours for inspection, like ended jobs.

import type { QuotaHold } from '../quota/quota-hold.js';
import type { Admitter, Queue, Ticket } from './queue-types.js';

export const TICKET_RETENTION_MS = 24 * 3_600_000;

/** A new ticket as the caller asks for it: pending, settled by nobody yet. */
export function pendingTicket(
  ask: Pick<Ticket, 'id' | 'kind' | 'owner' | 'pin' | 'request' | 'waiting'> &
    Pick<Partial<Ticket>, 'agent' | 'place'>,
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

/** What the admitting service chose for a ticket it claims, under the queue and placements locks. */
export interface TicketClaim {
  admitter: Admitter;
  host: string;
  reservation: string;
  /** The job and item ids of a job ticket (null for a `place` ticket), so a launch is named once. */
  job: string | null;
  item: string | null;
}

/** pending -> admitting: claimed by this service with its reservation, not yet launched. */
export function claimTicket(ticket: Ticket, claim: TicketClaim, now: number): Ticket {
  return { ...ticket, state: 'admitting', state_ms: now, ...claim };
}

/**
 * -> admitted. A caller that does not wait is told through its inbox (the notice stays `pending`
 * until delivered); a waiting caller sees the state itself.
 */
export function admitTicket(ticket: Ticket, now: number): Ticket {
  return { ...ticket, state: 'admitted', state_ms: now, notice: noticeOf(ticket) };
}

/** -> failed, with the reason; noticed like an admission. */
export function failTicket(ticket: Ticket, error: string, now: number): Ticket {
  return { ...ticket, state: 'failed', state_ms: now, error, notice: noticeOf(ticket) };
}

/**
 * A pending ticket's quota hold (core/quota-hold.ts), or none: not a state change, since the ticket
 * stays pending, but the reason it waits, shown on the ticket and the board.
 */
export function holdTicket(ticket: Ticket, hold: QuotaHold | null): Ticket {
  return { ...ticket, hold: hold === null ? null : { ...hold } };
}

/** pending -> cancelled, by its owner (`dogsled cancel`); cancelRefusal says when it may. */
export function cancelTicket(ticket: Ticket, now: number): Ticket {
  return { ...ticket, state: 'cancelled', state_ms: now, error: 'cancelled', notice: null };
}

function noticeOf(ticket: Pick<Ticket, 'waiting'>): Ticket['notice'] {
  return ticket.waiting ? null : 'pending';
}

/** The queue with `ticket` in place of the ticket of the same id. */
export function withTicket(queue: Queue, ticket: Ticket): Queue {
  return { ...queue, tickets: queue.tickets.map((t) => (t.id === ticket.id ? ticket : t)) };
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
  if (evidence.kind === 'started' || evidence.kind === 'placement') return admitTicket(ticket, now);
  const job = ticket.job ?? (ticket.agent ? `launch ${ticket.agent.launch}` : 'its job');
  const stopped = `admission interrupted: the service${serviceOf(ticket)} stopped`;
  const error =
    evidence.kind === 'no-record'
      ? `${stopped} before ${job} was created; nothing ran`
      : evidence.kind === 'not-started'
        ? `${job}: ${evidence.reason ?? 'ended before it started'}`
        : `${stopped} while admitting it; ${job} may have started (${evidence.why}): inspect it, nothing is relaunched`;
  return failTicket(ticket, error, now);
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
