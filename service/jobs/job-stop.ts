// `stop JOB`: ask the job to end, then end its process group. The stop file (jobs/ID.stop) comes
// first, so the exec wrapper records the end as `stopped` rather than as a crash, and a job that has
// not started yet ends `stopped` as soon as exec starts. The group gets SIGTERM, then SIGKILL after a
// grace, each only after checking its leader is still the job's process (a reused pid is never
// signalled). When the wrapper is gone too, stop writes the end itself.

import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { DogsledError } from '../core/common/errors.js';
import type { JobRecord } from '../core/jobs/job-types.js';
import { processAlive } from '../process/process-table.js';
import type { StateIO } from '../state/io.js';
import { STATE_FILE_MODE } from '../state/paths.js';
import { jobStopPath, readJobRecord, updateJobRecord } from '../state/records/job-records.js';
import { JobChanges } from './job-file-watch.js';
import { groupAlive, signalGroup } from './proc-identity.js';

/** How long the group has after SIGTERM before SIGKILL, and the wrapper to record the end after. */
export const STOP_GRACE_MS = 5_000;
const GROUP_POLL_MS = 100;

export type StopOutcome =
  /** It had ended before stop was asked. */
  | { kind: 'ended'; record: JobRecord }
  /** Created, not started: the stop file is there and exec ends it `stopped` when it starts. */
  | { kind: 'requested'; record: JobRecord }
  /** Ended now; `sent` is the last signal stop sent to the group (null: the group was already gone). */
  | { kind: 'stopped'; record: JobRecord; sent: NodeJS.Signals | null }
  /** The group was signalled but its live wrapper had not recorded the end within the grace. */
  | { kind: 'signalled'; record: JobRecord; sent: NodeJS.Signals | null };

export interface StopOptions {
  graceMs?: number;
}

export async function stopJob(io: StateIO, id: string, options: StopOptions = {}): Promise<StopOutcome> {
  const graceMs = options.graceMs ?? STOP_GRACE_MS;
  const first = await readJobRecord(io.paths, id);
  if (first.ended_ms !== null) return { kind: 'ended', record: first };
  const record = await requestStop(io, id);
  if (record.ended_ms !== null) return { kind: 'ended', record };
  if (record.started_ms === null) return { kind: 'requested', record };

  const grouped = await withGroup(io, record, graceMs);
  // exec saw the stop file once it had the group, and ended the job itself.
  if (grouped.ended_ms !== null) return { kind: 'stopped', record: grouped, sent: null };
  const sent = await endGroup(grouped, graceMs);
  const ended = await wrapperEnd(io, grouped, graceMs);
  if (ended !== undefined) return { kind: 'stopped', record: ended, sent };
  if (wrapperRuns(grouped)) return { kind: 'signalled', record: await readJobRecord(io.paths, id), sent };
  const final = await finalizeStopped(io, id, sent);
  return { kind: final.ended_ms === null ? 'signalled' : 'stopped', record: final, sent };
}

/**
 * Creates the stop file under the record's lock, and returns the record as it is then. exec starts
 * the job in the same locked update that checks the stop file, so either exec sees the file or this
 * sees a started record (and signals its group): a stop cannot fall between the two.
 */
async function requestStop(io: StateIO, id: string): Promise<JobRecord> {
  const record = await updateJobRecord(io, id, (current) => {
    if (current !== undefined && current.ended_ms === null)
      writeFileSync(jobStopPath(io.paths, id), '', { mode: STATE_FILE_MODE });
    return { result: current };
  });
  if (record === undefined) throw new DogsledError(`unknown job "${id}"`);
  return record;
}

/**
 * The record once it names the process group. exec claims the start and records the group in two
 * steps; a stop between them waits (up to the grace) for the group rather than signal nothing.
 */
async function withGroup(io: StateIO, record: JobRecord, graceMs: number): Promise<JobRecord> {
  const deadline = Date.now() + graceMs;
  let current = record;
  while (current.ended_ms === null && (current.pgid ?? null) === null && wrapperRuns(current)) {
    if (Date.now() >= deadline) break;
    await sleep(GROUP_POLL_MS);
    current = await readJobRecord(io.paths, record.id);
  }
  return current;
}

/** SIGTERM, then SIGKILL if the group outlives the grace. Returns the last signal sent. */
async function endGroup(record: JobRecord, graceMs: number): Promise<NodeJS.Signals | null> {
  const { pgid, pgid_start: start } = record;
  if (pgid === null || pgid === undefined) return null;
  if ((await signalGroup(pgid, start, 'SIGTERM')) === 'gone') return null;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!(await groupAlive(pgid, start))) return 'SIGTERM';
    await sleep(Math.min(GROUP_POLL_MS, Math.max(1, deadline - Date.now())));
  }
  return (await signalGroup(pgid, start, 'SIGKILL')) === 'signalled' ? 'SIGKILL' : 'SIGTERM';
}

/** The record once the live wrapper wrote its end, within the grace; undefined if it did not. */
async function wrapperEnd(io: StateIO, record: JobRecord, graceMs: number): Promise<JobRecord | undefined> {
  const changes = new JobChanges(io.paths.jobs, record.id);
  const deadline = Date.now() + graceMs;
  try {
    for (;;) {
      const current = await readJobRecord(io.paths, record.id);
      if (current.ended_ms !== null) return current;
      if (!wrapperRuns(current) || Date.now() >= deadline) return undefined;
      await changes.next(AbortSignal.timeout(Math.max(1, deadline - Date.now())));
    }
  } finally {
    changes.close();
  }
}

function wrapperRuns(record: JobRecord): boolean {
  if (record.wrapper_pid === null || record.wrapper_pid === undefined) return false;
  return processAlive(record.wrapper_pid, record.wrapper_start);
}

/** Writes the end the dead wrapper could not: `stopped`, by the signal stop sent. */
async function finalizeStopped(io: StateIO, id: string, sent: NodeJS.Signals | null): Promise<JobRecord> {
  const record = await updateJobRecord(io, id, (current) => {
    if (current === undefined || current.ended_ms !== null || wrapperRuns(current))
      return { result: current };
    const next: JobRecord = {
      ...current,
      ended_ms: Math.max(io.now(), current.started_ms ?? current.created_ms),
      exit_code: null,
      signal: sent,
      reason: 'stopped',
    };
    return { result: next, next };
  });
  if (record === undefined) throw new DogsledError(`unknown job "${id}"`);
  return record;
}
