// A job named by its id or by the ticket it was queued as: a queued `run` answers only with a ticket,
// so `wait`, `logs` and `stop` accept one and follow it to its job once the service admitted it. A
// ticket still pending (or being admitted) has no job to act on yet; each command says what it does
// then. A failed or cancelled ticket never gets a job.

import { DogsledError } from '../core/common/errors.js';
import type { Ticket } from '../core/placement/queue-types.js';
import { squeezedLine } from '../core/text/clean.js';
import { waitForTicket } from '../queue/ticket-wait.js';
import type { StateIO } from '../state/io.js';
import { readJobRecord } from '../state/records/job-records.js';
import { readQueue } from '../state/records/queue-items.js';

export type JobRef =
  | { kind: 'job'; id: string; ticket?: Ticket }
  /** Queued, or being admitted: no job yet. */
  | { kind: 'waiting'; ticket: Ticket }
  /** Failed or cancelled: it will never have a job. */
  | { kind: 'settled'; ticket: Ticket; why: string }
  /** A `place` ticket: a reservation, never a job. */
  | { kind: 'placement'; ticket: Ticket };

/** Ticket ids (ids.ts) start with `t_`; job ids with `j_`. */
const TICKET_ID = /^t_[A-Za-z0-9_-]+$/;

/**
 * What `ref` names. A job id is read as ever (an unknown one is `unknown job "x"`); a ticket id is
 * looked up in queue.json, where a settled ticket stays a day.
 */
export async function resolveJobRef(io: StateIO, ref: string): Promise<JobRef> {
  if (!TICKET_ID.test(ref)) {
    await readJobRecord(io.paths, ref);
    return { kind: 'job', id: ref };
  }
  const ticket = (await readQueue(io)).tickets.find((t) => t.id === ref);
  if (ticket === undefined) throw new DogsledError(`unknown ticket "${squeezedLine(ref)}"`);
  return refOf(ticket);
}

export function refOf(ticket: Ticket): JobRef {
  if (ticket.kind === 'place' || ticket.request === null) return { kind: 'placement', ticket };
  switch (ticket.state) {
    case 'pending':
    case 'admitting':
      return { kind: 'waiting', ticket };
    case 'failed':
      return { kind: 'settled', ticket, why: `failed: ${ticket.error ?? 'no reason given'}` };
    case 'cancelled':
      return { kind: 'settled', ticket, why: 'was cancelled' };
    case 'admitted':
      if (ticket.job === null) return { kind: 'settled', ticket, why: 'was admitted without a job' };
      return { kind: 'job', id: ticket.job, ticket };
  }
}

/**
 * Follows a waiting ticket until it settles (admitted, failed, cancelled), or rejects with
 * `signal.reason`. The ticket stays as it is: a wait never cancels.
 */
export async function settledRef(io: StateIO, ticket: Ticket, signal?: AbortSignal): Promise<SettledRef> {
  const settled = await waitForTicket(io, ticket.id, signal ? { signal } : {});
  const ref = refOf(settled);
  // A settled ticket is never waiting; the check keeps the type honest.
  if (ref.kind === 'waiting') throw new Error(`ticket ${ticket.id} settled as ${settled.state}`);
  return ref;
}

export type SettledRef = Exclude<JobRef, { kind: 'waiting' }>;

/** The one-line error for a ticket that will never have a job to act on. */
export function noJob(command: string, ref: Exclude<SettledRef, { kind: 'job' }>): DogsledError {
  if (ref.kind === 'placement') {
    return new DogsledError(`${command}: ticket ${ref.ticket.id} is a placement: it has no job`);
  }
  return new DogsledError(`${command}: ticket ${ref.ticket.id} ${squeezedLine(ref.why)}: it has no job`);
}

/** How often `untilRecorded` looks again. */
const RECORD_POLL_MS = 100;

/**
 * For a ticket being admitted: its job once the record exists (exec may already run it), or what the
 * ticket settled as. Undefined when neither happened within `timeoutMs`.
 */
export async function untilRecorded(
  io: StateIO,
  ticket: Ticket,
  timeoutMs: number,
): Promise<JobRef | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = (await readQueue(io)).tickets.find((t) => t.id === ticket.id);
    if (now === undefined) throw new DogsledError(`ticket ${ticket.id} is no longer in the queue`);
    const ref = refOf(now);
    if (ref.kind !== 'waiting') return ref;
    if (now.state === 'admitting' && now.job !== null) {
      const exists = await readJobRecord(io.paths, now.job).then(
        () => true,
        () => false,
      );
      if (exists) return { kind: 'job', id: now.job, ticket: now };
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, RECORD_POLL_MS));
  }
}
