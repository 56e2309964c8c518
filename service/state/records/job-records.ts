// Job records: the atomic jobs/ID.json that `run` creates and `exec` completes for each job (spec,
// "Jobs, agents, and owners"), its output log jobs/ID.log and the stop request jobs/ID.stop. A record
// moves created -> started -> ended and is replaced whole each time. Listing is tolerant and
// read-only: a record that does not parse is reported, never quarantined or fatal, because doctor
// changes nothing. Retention is core/job-expiry.ts. Records are judged by their hand check, equal to
// JobRecordSchema (checks/job-record-check.ts): every `run` and its supervisor read and write them,
// and building the schema was a good part of both.

import { statSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { isJobId, oldestFirst } from '../../core/jobs/job-status.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import { squeezedLine } from '../../core/text/clean.js';
import { JobRecordCheck } from '../checks/job-record-check.js';
import { dirNames } from '../engine/dir-names.js';
import { glanceText } from '../engine/glance-file.js';
import { NotRegularFile, readRegular } from '../engine/regular-file.js';
import { updateNow } from '../engine/update-now.js';
import type { StateIO } from '../io.js';
import { STATE_FILE_MODE, type StatePaths } from '../paths.js';

// The store (the waiting writer, with its lock and proper-lockfile) is imported where it is used:
// `run` and the job's supervisor create and change records at once (updateNow) and load it only
// when a lock is held or a record is in doubt.
const store = () => import('../engine/store.js');

export interface JobListing {
  records: JobRecord[];
  /** Record files that could not be read or do not match the schema (or their own name). */
  problems: Array<{ path: string; reason: string }>;
}

export type JobRemoval = { kind: 'removed'; paths: string[] } | { kind: 'gone' };

export function jobRecordPath(paths: StatePaths, id: string): string {
  return join(paths.jobs, `${checkedId(id)}.json`);
}

export function jobLogPath(paths: StatePaths, id: string): string {
  return join(paths.jobs, `${checkedId(id)}.log`);
}

/** The caller's environment until exec claims the job (state/job-env.ts); never in the record itself. */
export function jobEnvPath(paths: StatePaths, id: string): string {
  return join(paths.jobs, `${checkedId(id)}.env`);
}

/** Created by `stop` before it kills the group, so exec records the end as stopped, not as a crash. */
export function jobStopPath(paths: StatePaths, id: string): string {
  return join(paths.jobs, `${checkedId(id)}.stop`);
}

/** Replaces the record atomically (jobs/ is created 0700 when missing). */
export async function writeJobRecord(paths: StatePaths, record: JobRecord): Promise<void> {
  await mkdir(paths.jobs, { recursive: true, mode: 0o700 });
  await (await store()).writeState(jobRecordPath(paths, record.id), JobRecordCheck, record);
}

/**
 * Read-modify-write of one record under its lock: `run`, `exec`, `stop` and the service all change
 * records, and a whole-file replace without the lock would drop another writer's fields. `fn` gets
 * the current record (undefined when missing) and returns the new one, or undefined to leave it.
 * With no jobs/ at all there is no record: `fn` is asked about none first, and only a record it
 * creates makes the directory (then `fn` runs again, under the lock: it must decide from the record
 * it is given alone). A late writer whose state dir was removed under it (a job's wrapper outliving
 * its test, a host's state wiped) leaves nothing behind.
 */
export async function updateJobRecord<R>(
  io: StateIO,
  id: string,
  fn: (current: JobRecord | undefined) => { result: R; next?: JobRecord },
): Promise<R> {
  if (statSync(io.paths.jobs, { throwIfNoEntry: false }) === undefined) {
    const missing = fn(undefined);
    if (missing.next === undefined) return missing.result;
  }
  await mkdir(io.paths.jobs, { recursive: true, mode: 0o700 });
  return (await store()).updateState(jobRecordPath(io.paths, id), JobRecordCheck, io, fn);
}

/**
 * updateJobRecord done at once where the record's lock is free and the record beyond doubt
 * (update-now.ts: no waiting lock, no store, no thread-pool round trip per step; synced as always),
 * else by updateJobRecord, which waits, quarantines and words. For the job's own supervisor, whose
 * start claim and final record stand between a waiting `run` and its answer. `fn` may run twice
 * (here, then in the waiting writer, when this one left the file as it was): it must decide from
 * the record it is given alone.
 */
export async function updateJobRecordNow<R>(
  io: StateIO,
  id: string,
  fn: (current: JobRecord | undefined) => { result: R; next?: JobRecord },
): Promise<R> {
  const file = jobRecordPath(io.paths, id);
  if (!io.signal?.aborted) {
    const done = updateNow(file, JobRecordCheck, { mode: STATE_FILE_MODE, durable: true }, fn);
    if (done !== undefined) return done.result;
  }
  return updateJobRecord(io, id, fn);
}

/**
 * Creates job `record.id`'s record, never replacing one: a record already there (a peer's owner
 * ended this id as never started while its launch was on its way) is refused, and that launch must
 * not start. Every launch creates one on the caller's path, so it is written at once where its lock
 * is free (update-now.ts: no waiting lock, no store; synced as always); a held lock, a record in
 * doubt or a missing jobs/ goes to the waiting writer, which words the refusal.
 */
export async function createJobRecord(io: StateIO, record: JobRecord): Promise<void> {
  const create = (current: JobRecord | undefined) => {
    if (current !== undefined) throw new DogsledError(`job ${record.id} already has a record`);
    return { result: undefined, next: record };
  };
  const file = jobRecordPath(io.paths, record.id);
  const options = { mode: STATE_FILE_MODE, durable: true };
  if (!io.signal?.aborted && updateNow(file, JobRecordCheck, options, create) !== undefined) return;
  await updateJobRecord(io, record.id, create);
}

/**
 * The record of job `id`. An unknown or malformed id, and a record that does not parse, are one-line
 * DogsledErrors (exit 2): every command that names a job reads it through here.
 */
export async function readJobRecord(paths: StatePaths, id: string): Promise<JobRecord> {
  if (!isJobId(id)) throw new DogsledError(`unknown job "${squeezedLine(id)}"`);
  const path = jobRecordPath(paths, id);
  // A glance first (one synchronous read: a `run --wait` reads the record at every change of jobs/
  // and so loads no node:fs/promises); what it doubts (not a regular file, unreadable, a symlink)
  // is read again by readRegular, which words it.
  const glanced = glanceText(path);
  const read = glanced === undefined ? await readRecord(path, id) : judgeRecord(glanced ?? undefined, id);
  if ('record' in read) return read.record;
  if (read.reason === null) throw new DogsledError(`unknown job "${id}"`);
  throw new DogsledError(`job ${id}: record ${jobRecordPath(paths, id)}: ${read.reason}`);
}

/** Every record in jobs/, sorted by creation time. A missing jobs/ dir is an empty list. */
export async function listJobRecords(paths: StatePaths): Promise<JobListing> {
  let names: string[];
  try {
    names = dirNames(paths.jobs) ?? [];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], problems: [] };
    return { records: [], problems: [{ path: paths.jobs, reason: `cannot read (${codeOf(error)})` }] };
  }
  const listing: JobListing = { records: [], problems: [] };
  for (const name of names.sort()) {
    // Quarantined copies end in .bad-<ms> and temp files in .tmp-<writer>: not records.
    if (!name.endsWith('.json')) continue;
    const path = join(paths.jobs, name);
    const read = await readRecord(path, name.slice(0, -'.json'.length));
    if ('record' in read) listing.records.push(read.record);
    else if (read.reason !== null) listing.problems.push({ path, reason: read.reason });
  }
  listing.records.sort(oldestFirst);
  return listing;
}

/**
 * Removes the job's log, then its record (so a crash in between leaves a record that the next pass
 * removes, never an orphan log). `gone` when neither was there.
 */
export async function removeJob(paths: StatePaths, id: string): Promise<JobRemoval> {
  const removed: string[] = [];
  const files = [
    jobEnvPath(paths, id),
    jobStopPath(paths, id),
    jobLogPath(paths, id),
    jobRecordPath(paths, id),
  ];
  for (const path of files) {
    try {
      await rm(path);
      removed.push(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new DogsledError(`job ${id}: cannot remove ${path}: ${messageOf(error)}`, { cause: error });
    }
  }
  return removed.length > 0 ? { kind: 'removed', paths: removed } : { kind: 'gone' };
}

type RecordRead = { record: JobRecord } | { reason: string | null };

async function readRecord(path: string, id: string): Promise<RecordRead> {
  let text: string | undefined;
  try {
    // Only a regular file: a FIFO or device in a record's place must never block the reader.
    text = await readRegular(path);
  } catch (error) {
    return { reason: `cannot read (${notRegularOrCode(error)})` };
  }
  return judgeRecord(text, id);
}

/** The record in `text` (undefined: there is no file), or why it is none. */
function judgeRecord(text: string | undefined, id: string): RecordRead {
  // Removed by a concurrent prune between readdir and read: not a problem.
  if (text === undefined) return { reason: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { reason: `not JSON: ${squeezedLine(messageOf(error))}` };
  }
  const parsed = JobRecordCheck.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') ?? '';
    return {
      reason: `schema: ${squeezedLine(where ? `${where}: ${issue?.message}` : (issue?.message ?? 'invalid'))}`,
    };
  }
  if (parsed.data.id !== id)
    return { reason: `record id "${squeezedLine(parsed.data.id)}" does not match its file name` };
  return { record: parsed.data };
}

function checkedId(id: string): string {
  if (!isJobId(id)) throw new DogsledError(`job id "${squeezedLine(id)}" is not valid`);
  return id;
}

/** `a FIFO, not a regular file`, or the errno code (`EACCES`) of a read that failed. */
function notRegularOrCode(error: unknown): string {
  if (error instanceof NotRegularFile) return `${error.kind}, not a regular file`;
  return codeOf((error as { cause?: unknown }).cause ?? error);
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? squeezedLine(messageOf(error));
}
