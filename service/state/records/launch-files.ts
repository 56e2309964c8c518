// The files of one launch in the state dir of the host that runs the child: launches/<id>.task.md
// (the task, the only place task text goes), launches/<id>.contract.md (the child contract) and the
// durable record launches/<id>.json. Files are written whole and atomically, 0600 in a 0700 dir; the
// record changes only through updateState, so the owner, the service and close never lose a field.

import { lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type ContractFacts, childContract, TASK_MAX_BYTES } from '../../core/agents/child-contract.js';
import { launchPaneRecord } from '../../core/agents/launch-state.js';
import type { LaunchRecord } from '../../core/agents/launch-types.js';
import type { PaneRecord } from '../../core/cleanup/pane-rule.js';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { checkedMessage } from '../../core/inbox/message-text.js';
import { squeezedLine, stripEscapes } from '../../core/text/clean.js';
import { writeAtomic } from '../engine/atomic-write.js';
import { newId } from '../engine/ids.js';
import { readRecordFile } from '../engine/record-file.js';
import { updateState } from '../engine/store.js';
import type { StateIO } from '../io.js';
import { STATE_DIR_MODE, STATE_FILE_MODE, type StatePaths } from '../paths.js';
import { LaunchRecordSchema } from '../schemas/launch-schemas.js';

export interface LaunchFiles {
  record: string;
  task: string;
  contract: string;
}

/** Launch ids are file names: letters, digits, `_` and `-`, so no id can name a path elsewhere. */
const LAUNCH_ID = /^[A-Za-z0-9_-]+$/;

export function newLaunchId(): string {
  return newId('l');
}

export function launchFiles(paths: StatePaths, id: string): LaunchFiles {
  if (!LAUNCH_ID.test(id)) throw new DogsledError(`launch id "${squeezedLine(id)}" is not valid`);
  return {
    record: join(paths.launches, `${id}.json`),
    task: join(paths.launches, `${id}.task.md`),
    contract: join(paths.launches, `${id}.contract.md`),
  };
}

/**
 * Writes the task as the child will read it. Terminal escapes and other control characters are
 * removed (the text may come from another agent); an empty or oversized task is refused first.
 */
export async function writeTaskFile(paths: StatePaths, id: string, text: string): Promise<string> {
  const clean = stripEscapes(text);
  const bytes = Buffer.byteLength(clean);
  if (bytes > TASK_MAX_BYTES) {
    throw new DogsledError(
      `the task is ${bytes} bytes, over the ${TASK_MAX_BYTES}-byte limit: put large material in files and name them in the task`,
    );
  }
  checkedMessage(clean, 'the task');
  const file = launchFiles(paths, id).task;
  await writeWhole(paths, file, clean.endsWith('\n') ? clean : `${clean}\n`);
  return file;
}

export async function writeContractFile(
  paths: StatePaths,
  id: string,
  facts: ContractFacts,
): Promise<string> {
  const file = launchFiles(paths, id).contract;
  await writeWhole(paths, file, stripEscapes(childContract(facts)));
  return file;
}

/** The fields a new record starts with; the file paths follow from the id and the rest begin empty. */
export type NewLaunch = Pick<
  LaunchRecord,
  | 'id'
  | 'ticket'
  | 'item'
  | 'owner'
  | 'host'
  | 'name'
  | 'kind'
  | 'profile'
  | 'model'
  | 'role'
  | 'cwd'
  | 'branch'
  | 'worktree'
  | 'pane'
  | 'terminal_id'
  | 'workspace'
>;

/**
 * createLaunchRecord's refusal of an id that has a record already: the admission's owner ended that
 * launch before this one could begin (`host admission` with `end`), so this one must not begin.
 */
export class LaunchTaken extends DogsledError {
  constructor(
    message: string,
    /** The record the id has: a launch that never tried (`neverTried`) was ended before it began. */
    readonly record: LaunchRecord,
  ) {
    super(message);
  }
}

/** A record ended before any try: nothing of its launch ever ran, so nothing of it is in use. */
export function neverTried(record: LaunchRecord): boolean {
  return (
    record.attempts === 0 &&
    record.started_ms === null &&
    (record.state === 'failed' || record.state === 'refused')
  );
}

/** Creates the record in state `preparing`; an id that already has a record is refused (LaunchTaken). */
export async function createLaunchRecord(io: StateIO, launch: NewLaunch): Promise<LaunchRecord> {
  const now = io.now();
  const files = launchFiles(io.paths, launch.id);
  const record: LaunchRecord = {
    ...launch,
    task_file: files.task,
    contract_file: files.contract,
    state: 'preparing',
    attempts: 0,
    error: null,
    recent_output: null,
    created_ms: now,
    state_ms: now,
    started_ms: null,
  };
  await ensureLaunchesDir(io.paths);
  return guarded(files.record, () =>
    updateState(files.record, LaunchRecordSchema, io, (current) => {
      if (current !== undefined) throw new LaunchTaken(`launch ${launch.id} already has a record`, current);
      return { result: record, next: record };
    }),
  );
}

/**
 * Ends launch `launch.id` as never started (`failed` with `error`) when no try was made yet: a
 * record not made yet is made so, and then no launch can take the id (createLaunchRecord refuses
 * one with a record), so a launch still on its way never starts. Returns the record as it is now.
 */
export async function endUnstartedLaunch(
  io: StateIO,
  launch: NewLaunch,
  error: string,
): Promise<LaunchRecord> {
  const now = io.now();
  const files = launchFiles(io.paths, launch.id);
  await ensureLaunchesDir(io.paths);
  return guarded(files.record, () =>
    updateState(files.record, LaunchRecordSchema, io, (current) => {
      if (current === undefined) {
        const record: LaunchRecord = {
          ...launch,
          task_file: files.task,
          contract_file: files.contract,
          state: 'failed',
          attempts: 0,
          error,
          recent_output: null,
          created_ms: now,
          state_ms: now,
          started_ms: null,
        };
        return { result: record, next: record };
      }
      if (current.state !== 'preparing' || current.attempts > 0) return { result: current };
      const next: LaunchRecord = { ...current, state: 'failed', error, state_ms: now };
      return { result: next, next };
    }),
  );
}

/**
 * Read-modify-write of one record under its lock. `fn` gets the current record and returns the next
 * one (or undefined to leave it); `state_ms` moves whenever the state changes. A missing record is
 * an error naming the launch.
 */
export async function updateLaunchRecord(
  io: StateIO,
  id: string,
  fn: (current: LaunchRecord) => LaunchRecord | undefined,
): Promise<LaunchRecord> {
  const file = launchFiles(io.paths, id).record;
  return guarded(file, () =>
    updateState(file, LaunchRecordSchema, io, (current) => {
      if (current === undefined) throw new DogsledError(`launch ${id}: no record at ${file}`);
      const next = fn(current);
      if (next === undefined) return { result: current };
      const moved = next.state !== current.state ? { state_ms: io.now() } : {};
      const written = { ...next, ...moved };
      return { result: written, next: written };
    }),
  );
}

export interface LaunchListing {
  records: LaunchRecord[];
  /** Files that could not be read or do not match the schema (or their own name); never fatal. */
  problems: Array<{ path: string; reason: string }>;
}

/**
 * Every record in launches/, oldest first, read without locks (writers replace files whole). Only
 * regular files are opened: a FIFO or directory named like a record is a problem, never a hang.
 */
export async function listLaunchRecords(paths: StatePaths): Promise<LaunchListing> {
  let names: string[];
  try {
    names = await readdir(paths.launches);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { records: [], problems: [] };
    return {
      records: [],
      problems: [{ path: paths.launches, reason: `cannot read (${code ?? messageOf(error)})` }],
    };
  }
  const listing: LaunchListing = { records: [], problems: [] };
  for (const name of names.sort()) {
    if (!name.endsWith('.json')) continue;
    const path = join(paths.launches, name);
    const read = await readRecordFile(path, name.slice(0, -'.json'.length), LaunchRecordSchema);
    if ('record' in read) listing.records.push(read.record);
    else if (read.reason !== null) listing.problems.push({ path, reason: read.reason });
  }
  listing.records.sort((a, b) => a.created_ms - b.created_ms || a.id.localeCompare(b.id));
  return listing;
}

/** One record by id; undefined when there is none. A broken record is an error naming its file. */
export async function readLaunchRecord(paths: StatePaths, id: string): Promise<LaunchRecord | undefined> {
  const file = launchFiles(paths, id).record;
  const read = await readRecordFile(file, id, LaunchRecordSchema);
  if ('record' in read) return read.record;
  if (read.reason === null) return undefined;
  throw new DogsledError(`launch ${id}: record ${file}: ${read.reason}`);
}

/**
 * The launch records that own a terminal, as the pane rule takes them (PaneContext.records). Each
 * terminal gets its newest launch only: an older one in the same terminal was superseded by it.
 */
export function launchPaneRecords(records: readonly LaunchRecord[]): Map<string, PaneRecord[]> {
  const newest = new Map<string, { created: number; record: PaneRecord }>();
  for (const launch of records) {
    const entry = launchPaneRecord(launch);
    if (entry === null) continue;
    const seen = newest.get(entry.terminal);
    if (seen === undefined || launch.created_ms >= seen.created) {
      newest.set(entry.terminal, { created: launch.created_ms, record: entry.record });
    }
  }
  return new Map([...newest].map(([terminal, { record }]) => [terminal, [record]]));
}

async function ensureLaunchesDir(paths: StatePaths): Promise<void> {
  try {
    await mkdir(paths.launches, { recursive: true, mode: STATE_DIR_MODE });
  } catch (error) {
    throw new DogsledError(`cannot make ${paths.launches}: ${describe(error)}`, { cause: error });
  }
  const stats = await lstat(paths.launches);
  if (!stats.isDirectory()) throw new DogsledError(`cannot use ${paths.launches}: it is not a directory`);
}

/** Temp file, fsync, rename: a reader sees the whole file or nothing; a FIFO in the way is replaced. */
async function writeWhole(paths: StatePaths, file: string, text: string): Promise<void> {
  await ensureLaunchesDir(paths);
  try {
    await writeAtomic(file, text, { mode: STATE_FILE_MODE });
  } catch (error) {
    // writeAtomic names the file already; the system's own error says what was in the way.
    const cause = error instanceof DogsledError && error.cause !== undefined ? error.cause : error;
    throw new DogsledError(`cannot write ${file}: ${describe(cause)}`, { cause });
  }
}

/** Store failures on a record file (a directory in its place, no permission) become one line. */
async function guarded<T>(file: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof DogsledError) throw error;
    throw new DogsledError(`launch record ${file}: ${describe(error)}`, { cause: error });
  }
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EISDIR') return 'a directory is in the way';
  if (code === 'EEXIST' || code === 'ENOTDIR') return 'a file is in the way';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return squeezedLine(messageOf(error));
}
