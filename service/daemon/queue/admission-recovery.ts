// Settling admissions from their job records: tickets a killed service left `admitting`, and a
// launch that threw. The record decides (core/tickets.ts settleInterrupted): a job exec claimed has
// started, so its ticket is admitted and never launched again; a record still waiting for exec is
// ended at once under its own lock (exec, which claims under the same lock, then refuses it), so
// its ticket fails with that reason and its room is given back. Also removes the caller
// environments (tickets/ID.env) of tickets that will never launch.

import type { LaunchRecord } from '../../core/agents/launch-types.js';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import type { Admitter, Queue, Ticket } from '../../core/placement/queue-types.js';
import {
  interruptedNeverStarted,
  isExpiredTicket,
  isInterrupted,
  type LaunchEvidence,
  settleInterrupted,
} from '../../core/placement/tickets.js';
import { squeezedLine } from '../../core/text/clean.js';
import { endReservations } from '../../hosts/reserve-room.js';
import type { StateIO } from '../../state/io.js';
import { jobEnvPath, removeEnvFile, ticketEnvIds, ticketEnvPath } from '../../state/records/env-files.js';
import { readJobRecord, updateJobRecord } from '../../state/records/job-records.js';
import { readLaunchRecord, updateLaunchRecord } from '../../state/records/launch-files.js';
import { updateItems, updateQueue } from '../../state/records/queue-items.js';

/**
 * What the ticket's launch left. `endUnstarted` ends a record exec has not claimed (the launcher is
 * gone, so it would otherwise wait ten minutes for a start that the service no longer drives).
 */
export async function launchEvidence(
  io: StateIO,
  ticket: Ticket,
  endUnstarted: boolean,
): Promise<LaunchEvidence> {
  if (ticket.agent)
    return agentEvidence(io, ticket.agent.launch, endUnstarted ? interruptedNeverStarted(ticket) : null);
  if (ticket.request === null) return { kind: 'placement' };
  if (ticket.job === null) return { kind: 'no-record' };
  let record: JobRecord;
  try {
    record = await readJobRecord(io.paths, ticket.job);
  } catch (error) {
    if (error instanceof DogsledError && error.message.startsWith('unknown job'))
      return { kind: 'no-record' };
    return { kind: 'unknown', why: squeezedLine(messageOf(error)) };
  }
  const judged = judge(record);
  if (judged !== undefined || !endUnstarted) return judged ?? { kind: 'unknown', why: 'not started yet' };
  const reason = interruptedNeverStarted(ticket);
  const now = io.now();
  return updateJobRecord(io, ticket.job, (current) => {
    if (current === undefined) return { result: { kind: 'no-record' } satisfies LaunchEvidence };
    const known = judge(current);
    if (known !== undefined) return { result: known };
    const next: JobRecord = { ...current, ended_ms: now, reason };
    return { result: { kind: 'not-started', reason } satisfies LaunchEvidence, next };
  });
}

/**
 * An agent ticket's evidence is its launch record: started is started; refused or failed never ran;
 * no record means the launch never began. A record that names no try yet (`preparing`, no attempt)
 * is ended as never started when `neverStarted` says why; any try made may have typed the line, so
 * whether the child runs is unknown and nothing is launched again.
 */
async function agentEvidence(
  io: StateIO,
  launch: string,
  neverStarted: string | null,
): Promise<LaunchEvidence> {
  let record: LaunchRecord | undefined;
  try {
    record = await readLaunchRecord(io.paths, launch);
  } catch (error) {
    return { kind: 'unknown', why: squeezedLine(messageOf(error)) };
  }
  if (record === undefined) return { kind: 'no-record' };
  const judged = judgeLaunch(record);
  if (judged !== undefined) return judged;
  if (neverStarted === null || record.attempts > 0) {
    return { kind: 'unknown', why: `launch ${launch} is ${record.state} after ${record.attempts} tries` };
  }
  const ended = await updateLaunchRecord(io, launch, (current) =>
    judgeLaunch(current) !== undefined || current.attempts > 0
      ? undefined
      : { ...current, state: 'failed', error: neverStarted },
  );
  return judgeLaunch(ended) ?? { kind: 'unknown', why: `launch ${launch} is ${ended.state}` };
}

function judgeLaunch(record: LaunchRecord): LaunchEvidence | undefined {
  if (record.state === 'started') return { kind: 'started' };
  if (record.state === 'refused' || record.state === 'failed')
    return { kind: 'not-started', reason: record.error };
  return undefined;
}

function judge(record: JobRecord): LaunchEvidence | undefined {
  if (record.started_ms !== null) return { kind: 'started' };
  if (record.ended_ms !== null) return { kind: 'not-started', reason: record.reason };
  return undefined;
}

/**
 * The room and files of a ticket whose job never ran: its reservation ends, and its caller
 * environment (ticket's and job's) is removed. A started job keeps its reservation until it ends.
 */
export async function releaseUnlaunched(
  io: StateIO,
  ticket: Ticket,
  evidence: LaunchEvidence,
): Promise<void> {
  await removeEnvFile(ticketEnvPath(io.paths, ticket.id));
  if (evidence.kind === 'started' || evidence.kind === 'placement' || evidence.kind === 'unknown') return;
  if (ticket.job !== null) await removeEnvFile(jobEnvPath(io.paths, ticket.job));
  if (ticket.reservation !== null) await endReservations(io, [ticket.reservation]);
  // An agent's item is written before its pane exists: one whose child never ran closes here.
  const item = ticket.item;
  if (ticket.agent && item !== null) {
    const now = io.now();
    await updateItems(io, (items) => {
      const open = items.items.some((entry) => entry.id === item && entry.closed_ms === null);
      if (!open) return { result: undefined };
      const list = items.items.map((entry) =>
        entry.id === item ? { ...entry, closed_ms: now, close_reason: 'launch failed' } : entry,
      );
      return { result: undefined, next: { ...items, items: list } };
    });
  }
}

/**
 * Removes tickets/ID.env of every ticket that is not waiting for a launch (cancelled, settled,
 * dropped). Judged again under the queue lock: `run` writes a ticket's file inside that lock just
 * before the ticket enters the queue, so a file seen without its ticket may be one being queued.
 */
export async function sweepTicketEnvs(io: StateIO, queue: Queue): Promise<void> {
  const ids = await ticketEnvIds(io.paths);
  if (ids.length === 0) return;
  if (ids.every((id) => waiting(queue).has(id))) return;
  await updateQueue(io, async (current) => {
    const live = waiting(current);
    for (const id of ids) if (!live.has(id)) await removeEnvFile(ticketEnvPath(io.paths, id));
    return { result: undefined };
  });
}

function waiting(queue: Queue): Set<string> {
  return new Set(
    queue.tickets.filter((t) => t.state === 'pending' || t.state === 'admitting').map((t) => t.id),
  );
}

/**
 * Settles, under the queue lock, every ticket still interrupted from its evidence (gathered before,
 * outside the lock), and drops settled tickets past their retention. Returns the tickets it settled.
 */
export async function settleInterruptedTickets(
  io: StateIO,
  admitter: Admitter,
  evidence: ReadonlyMap<string, LaunchEvidence>,
): Promise<Ticket[]> {
  return updateQueue(io, (queue) => {
    const now = io.now();
    const interrupted: Ticket[] = [];
    const tickets = queue.tickets.flatMap((ticket) => {
      if (isExpiredTicket(ticket, now)) return [];
      const found = evidence.get(ticket.id);
      if (found === undefined || !isInterrupted(ticket, admitter)) return [ticket];
      const next = settleInterrupted(ticket, found, now);
      interrupted.push(next);
      return [next];
    });
    const changed = tickets.length !== queue.tickets.length || interrupted.length > 0;
    return changed ? { result: interrupted, next: { ...queue, tickets } } : { result: interrupted };
  });
}

/** Drops settled tickets past their retention (a day), when the queue has any. */
export async function dropExpiredTickets(io: StateIO, queue: Queue): Promise<void> {
  const now = io.now();
  if (!queue.tickets.some((t) => isExpiredTicket(t, now))) return;
  await updateQueue(io, (current) => ({
    result: undefined,
    next: { ...current, tickets: current.tickets.filter((t) => !isExpiredTicket(t, io.now())) },
  }));
}
