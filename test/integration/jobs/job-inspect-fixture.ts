// Jobs for the inspection tests, made without `run` or `exec`: records written through the record
// store, and real detached process groups whose pids go into the record as exec writes them. The
// "wrapper" is either this test process (which then writes the final record when the group's leader
// exits, honouring jobs/ID.stop like exec) or a process that is already dead.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { readStat } from '../../../service/process/process-table.js';
import { newId } from '../../../service/state/engine/ids.js';
import type { StateIO } from '../../../service/state/io.js';
import { statePaths } from '../../../service/state/paths.js';
import {
  jobLogPath,
  jobStopPath,
  readJobRecord,
  updateJobRecord,
  writeJobRecord,
} from '../../../service/state/records/job-records.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { jobFixture } from '../../helpers/job-fixtures.js';

export interface JobSandbox extends Sandbox {
  io: StateIO;
}

export async function jobSandbox(extraEnv: NodeJS.ProcessEnv = {}): Promise<JobSandbox> {
  const box = await sandbox(extraEnv);
  const warnings: string[] = [];
  const io: StateIO = { paths: statePaths(box.state), now: Date.now, warn: (line) => warnings.push(line) };
  return { ...box, io };
}

export function createdRecord(id: string, fields: Partial<JobRecord> = {}): JobRecord {
  return jobFixture({ id, command: ['sh', '-c', 'true'], owner: null, ...fields });
}

/** A record in the created state: what `run` writes before the pane exists. */
export async function createJob(io: StateIO, fields: Partial<JobRecord> = {}): Promise<JobRecord> {
  const record = createdRecord(newId('j'), fields);
  await writeJobRecord(io.paths, record);
  return record;
}

export interface RunningJob {
  id: string;
  child: ChildProcess;
  pgid: number;
  /** When the group's leader exited, and how. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The final record, once this process (as the wrapper) wrote it; never settles for a dead wrapper. */
  ended: Promise<JobRecord>;
}

export interface StartOptions {
  /** 'self': this process is the wrapper; 'dead': the record names a wrapper that has exited. */
  wrapper?: 'self' | 'dead';
  cwd?: string;
}

/**
 * Starts `script` under `sh -c` as the leader of its own process group, its output appended to
 * jobs/ID.log, and marks the record started with the pids and /proc start times exec would record.
 */
export async function startJob(
  io: StateIO,
  id: string,
  script: string,
  options: StartOptions = {},
): Promise<RunningJob> {
  const log = await open(jobLogPath(io.paths, id), 'a', 0o600);
  const child = spawn('sh', ['-c', script], {
    detached: true,
    stdio: ['ignore', log.fd, log.fd],
    cwd: options.cwd ?? io.paths.dir,
  });
  // Listen before any await: a quick command exits (and is reaped) while we wait.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  await log.close();
  const pgid = child.pid as number;
  const pgidStart = (await readStat(pgid))?.start ?? null;
  const wrapper = options.wrapper === 'dead' ? await deadProcess() : await self();
  await updateJobRecord(io, id, (current) => {
    if (current === undefined) throw new Error(`no record ${id}`);
    const next: JobRecord = {
      ...current,
      started_ms: Date.now(),
      wrapper_pid: wrapper.pid,
      wrapper_start: wrapper.start,
      pgid,
      pgid_start: pgidStart,
    };
    return { result: undefined, next };
  });
  const ended =
    options.wrapper === 'dead'
      ? new Promise<JobRecord>(() => {})
      : exited.then(({ code, signal }) =>
          updateJobRecord(io, id, (current) => {
            if (current === undefined) throw new Error(`no record ${id}`);
            const next: JobRecord = {
              ...current,
              ended_ms: Date.now(),
              exit_code: code,
              signal,
              reason: existsSync(jobStopPath(io.paths, id)) ? 'stopped' : null,
            };
            return { result: next, next };
          }),
        );
  // A test that never awaits `ended` must not see an unhandled rejection from a removed sandbox.
  ended.catch(() => {});
  return { id, child, pgid, exited, ended };
}

/** A created job started at once (see startJob). */
export async function runningJob(
  io: StateIO,
  script: string,
  options: StartOptions = {},
): Promise<RunningJob> {
  const record = await createJob(io, { command: ['sh', '-c', script] });
  return startJob(io, record.id, script, options);
}

/** A process that ran and has exited, with the start time it had: a wrapper that died. */
export async function deadProcess(): Promise<{ pid: number; start: number | null }> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const pid = child.pid as number;
  const start = (await readStat(pid))?.start ?? null;
  const gone = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await gone;
  return { pid, start };
}

export async function self(): Promise<{ pid: number; start: number | null }> {
  return { pid: process.pid, start: (await readStat(process.pid))?.start ?? null };
}

/** Whether the process `pid` still runs (not a zombie). */
export async function alive(pid: number): Promise<boolean> {
  const stat = await readStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** SIGKILL to a group a test left behind; a group that is gone is fine. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {}
}

export const record = (io: StateIO, id: string) => readJobRecord(io.paths, id);
