// The job record as `exec` moves it: the refusals (unknown, already started or ended, another
// command), the start claim, the process group, and the final record. Every change is made under
// the record's lock (updateJobRecordNow: at once where it is free, else the waiting writer), and
// the start claim checks the stop file under that lock, the same lock `stop` creates it under, so a
// stop can never fall between the check and the start.

import { existsSync } from 'node:fs';
import { DogsledError } from '../../core/common/errors.js';
import { shellLine } from '../../core/common/shell-quote.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import { squeezedLine } from '../../core/text/clean.js';
import type { StateIO } from '../../state/io.js';
import type { StatePaths } from '../../state/paths.js';
import { jobStopPath, updateJobRecordNow } from '../../state/records/job-records.js';

/** How the command ended, as the final record spells it, and what it used when that was measured. */
export interface JobEnd {
  exit_code: number | null;
  signal: string | null;
  reason: string | null;
  peak_rss_bytes?: number | null;
  cpu_ms?: number | null;
  /** The command's group, when it ended before the group was written on its own. */
  pgid?: number;
  pgid_start?: number | null;
}

export type Claim =
  /** Started now: the command may run. */
  | { kind: 'started'; record: JobRecord }
  /** The stop file was there: ended `stopped` without running anything. */
  | { kind: 'stopped'; record: JobRecord };

/**
 * Why `exec` must not run this record, or undefined when it may. `command` is the one the caller
 * named (`exec ID -- CMD`), undefined for `exec ID`, which runs the record's own.
 */
export function refusalOf(record: JobRecord, command?: readonly string[]): string | undefined {
  if (record.ended_ms !== null) return `job ${record.id} already ended: a job runs once`;
  if (record.started_ms !== null) {
    const pid = record.wrapper_pid ? ` (wrapper pid ${record.wrapper_pid})` : '';
    return `job ${record.id} already started${pid}: a job runs once`;
  }
  if (command === undefined) return undefined;
  const same = record.command.length === command.length && record.command.every((a, i) => a === command[i]);
  if (!same) {
    return `job ${record.id} runs ${squeezedLine(shellLine(record.command))}, not ${squeezedLine(shellLine(command))}`;
  }
  return undefined;
}

/**
 * Marks the record started by this wrapper, or ends it `stopped` when jobs/ID.stop exists. Throws
 * the refusal (exit 2) when the record is missing, started, ended or names another command.
 */
export async function claimJob(
  io: StateIO,
  id: string,
  command: readonly string[] | undefined,
  wrapper: { pid: number; start: number | null },
): Promise<Claim> {
  const now = io.now();
  const stopFile = jobStopPath(io.paths, id);
  const claim = await updateJobRecordNow(io, id, (current): { result: Claim | string; next?: JobRecord } => {
    if (current === undefined) return { result: `unknown job "${id}"` };
    const refusal = refusalOf(current, command);
    if (refusal !== undefined) return { result: refusal };
    if (existsSync(stopFile)) {
      const next: JobRecord = { ...current, ended_ms: now, exit_code: null, signal: null, reason: 'stopped' };
      return { result: { kind: 'stopped', record: next }, next };
    }
    const next: JobRecord = {
      ...current,
      started_ms: now,
      wrapper_pid: wrapper.pid,
      wrapper_start: wrapper.start,
    };
    return { result: { kind: 'started', record: next }, next };
  });
  if (typeof claim === 'string') throw new DogsledError(claim);
  return claim;
}

/** Records the command's process group (its leader's pid and start time). */
export async function recordGroup(
  io: StateIO,
  id: string,
  group: { pgid: number; start: number | null },
): Promise<void> {
  await updateJobRecordNow(io, id, (current) => {
    if (current === undefined || current.ended_ms !== null) return { result: undefined };
    return { result: undefined, next: { ...current, pgid: group.pgid, pgid_start: group.start } };
  });
}

/**
 * Saves the final record. The wrapper saw the command end, so its end replaces one a reconciler may
 * have guessed meanwhile. A record removed under it is rebuilt from `started` so the caller still
 * gets an answer (and a warning), but not written back.
 */
export async function endJob(io: StateIO, started: JobRecord, end: JobEnd): Promise<JobRecord> {
  const now = io.now();
  const final = await updateJobRecordNow(io, started.id, (current) => {
    const base = current ?? started;
    const next: JobRecord = { ...base, ended_ms: Math.max(now, base.started_ms ?? base.created_ms), ...end };
    return current === undefined ? { result: undefined } : { result: next, next };
  });
  if (final !== undefined) return final;
  io.warn(`dogsled: exec: job ${started.id}: its record disappeared before the end could be saved`);
  return { ...started, ended_ms: now, ...end };
}

/** Whether `stop` asked for this job (jobs/ID.stop exists). */
export function stopRequested(paths: StatePaths, id: string): boolean {
  return existsSync(jobStopPath(paths, id));
}
