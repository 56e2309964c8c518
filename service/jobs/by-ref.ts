// `wait`, `logs` and `stop` of a job named by its id or by the ticket a queued `run` printed
// (job-ref.ts), for every caller. Each resolves the name first, so an unknown job or ticket is an
// error before anything waits; a ticket still queued is followed to its job (wait, logs --follow),
// reported (logs) or refused with a pointer to `cancel` (stop, which acts on what runs, never on
// what waits). A wait or follow never signals or cancels the job.

import { DogsledError } from '../core/common/errors.js';
import { testKnob } from '../core/common/test-knobs.js';
import type { JobRecord } from '../core/jobs/job-types.js';
import type { Ticket } from '../core/placement/queue-types.js';
import type { ProcessIO, StateIO } from '../state/io.js';
import { readJobRecord } from '../state/records/job-records.js';
import { copyJobLog, followJobLog, type LogWrite } from './job-logs.js';
import { type JobRef, noJob, resolveJobRef, settledRef, untilRecorded } from './job-ref.js';
import { STOP_GRACE_MS, type StopOutcome, stopJob } from './job-stop.js';
import { waitForJob } from './job-wait.js';

/** How a wait or a follow ended: the job's end, its deadline, or the caller's interrupt. */
export type WaitOutcome =
  | { kind: 'ended'; record: JobRecord }
  | { kind: 'deadline' }
  | { kind: 'interrupted' };

export interface WaitSignals {
  /** The caller's deadline (`--max`): the wait gives up, the job keeps running. */
  deadline?: AbortSignal;
  /** The caller was interrupted (Ctrl-C). */
  stopped: AbortSignal;
}

/** `wait`: the final record of the job `ref` names, following a ticket to its job. */
export async function waitForRef(io: StateIO, ref: string, signals: WaitSignals): Promise<WaitOutcome> {
  let target: JobRef = await resolveJobRef(io, ref);
  const { deadline, stopped } = signals;
  const signal = deadline ? AbortSignal.any([deadline, stopped]) : stopped;
  try {
    if (target.kind === 'waiting') target = await settledRef(io, target.ticket, signal);
    if (target.kind !== 'job') throw noJob('wait', target);
    return { kind: 'ended', record: await waitForJob(io, target.id, { signal }) };
  } catch (error) {
    if (stopped.aborted) return { kind: 'interrupted' };
    if (!deadline?.aborted) throw error;
    // A job that ended just as the deadline fired has a status to return.
    if (target.kind === 'job') {
      const last = await readJobRecord(io.paths, target.id);
      if (last.ended_ms !== null) return { kind: 'ended', record: last };
    }
    return { kind: 'deadline' };
  }
}

export type LogsOutcome =
  /** Its ticket has not been admitted yet: no output exists (only without `follow`). */
  { kind: 'queued'; ticket: Ticket } | { kind: 'done' } | { kind: 'interrupted' };

/**
 * `logs`: the job's output as exec captured it, once, or with `follow` until the job ends (a queued
 * ticket is waited for first). `stopped` ends a follow (the job is untouched); a single copy is not
 * interrupted.
 */
export async function logsOfRef(
  io: StateIO,
  ref: string,
  options: { follow: boolean; write: LogWrite; stopped?: AbortSignal },
): Promise<LogsOutcome> {
  let target: JobRef = await resolveJobRef(io, ref);
  if (target.kind === 'waiting' && !options.follow) return { kind: 'queued', ticket: target.ticket };
  if (target.kind === 'settled' || target.kind === 'placement') throw noJob('logs', target);
  if (!options.follow && target.kind === 'job') {
    await copyJobLog(io, target.id, options.write);
    return { kind: 'done' };
  }
  const { stopped } = options;
  try {
    if (target.kind === 'waiting') target = await settledRef(io, target.ticket, stopped);
    if (target.kind !== 'job') throw noJob('logs', target);
    await followJobLog(io, target.id, { write: options.write, ...(stopped ? { signal: stopped } : {}) });
    return { kind: 'done' };
  } catch (error) {
    if (stopped?.aborted) return { kind: 'interrupted' };
    throw error;
  }
}

export type StopRefOutcome =
  /** A failed or cancelled ticket: nothing runs, which is no error. */
  { kind: 'settled'; ticket: Ticket; why: string } | StopOutcome;

/** `stop`: stops the job `ref` names (stop.ts); a queued ticket is refused, pointing at `cancel`. */
export async function stopRef(io: ProcessIO, ref: string): Promise<StopRefOutcome> {
  const graceMs = stopGrace(io.env);
  let target = await resolveJobRef(io, ref);
  if (target.kind === 'waiting' && target.ticket.state === 'pending') {
    const id = target.ticket.id;
    throw new DogsledError(
      `stop: ticket ${id} is still queued, nothing runs yet: cancel it with dogsled cancel ${id}`,
    );
  }
  // Being admitted: its job may already run; wait (up to the grace) for its record to exist.
  if (target.kind === 'waiting') {
    const id = target.ticket.id;
    target = (await untilRecorded(io, target.ticket, graceMs)) ?? target;
    if (target.kind === 'waiting')
      throw new DogsledError(`stop: ticket ${id} is being admitted: its job is not recorded yet, try again`);
  }
  if (target.kind === 'placement') throw noJob('stop', target);
  if (target.kind === 'settled') return { kind: 'settled', ticket: target.ticket, why: target.why };
  return stopJob(io, target.id, { graceMs });
}

/** The SIGTERM grace, shortened only in tests (the STOP_GRACE_MS knob), never by a stray variable. */
function stopGrace(env: NodeJS.ProcessEnv): number {
  return testKnob(env, 'STOP_GRACE_MS') ?? STOP_GRACE_MS;
}
