// The exec supervisor: the process that owns a job from start to final record. The pane's `exec`
// starts it in a session of its own, so closing the pane (Herdr kills the pane's whole session)
// leaves it running: it claims the record, takes the caller's environment from jobs/ID.env (and
// removes that file), runs the command with its timeouts, measures what it used, ends its
// reservation, saves the final record, reports the end to Herdr and closes the job's tab. SIGTERM or
// SIGINT kill the job's group and end the record `wrapper terminated`; SIGHUP is ignored.

import { closeSync, fchmodSync, openSync } from 'node:fs';
import { messageOf } from '../../core/common/errors.js';
import { jobEnvironment } from '../../core/jobs/job-env.js';
import { exitStatusOf } from '../../core/jobs/job-status.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import { squeezedLine } from '../../core/text/clean.js';
import { endReservationsNow } from '../../hosts/reservation-end.js';
import { selfStart } from '../../process/process-table.js';
import { SUPERVISOR_ENV } from '../../process/self-invocation.js';
import type { ProcessIO } from '../../state/io.js';
import { STATE_FILE_MODE } from '../../state/paths.js';
import { readEnvFileNow, removeEnvFileNow } from '../../state/records/env-file-read.js';
import { jobEnvPath, jobLogPath } from '../../state/records/job-records.js';
import { paneVariables } from '../../terminal/herdr/herdr-env.js';
import { startChild } from './exec-child.js';
import { jobPaneOf, PaneReporter } from './exec-pane-state.js';
import { claimJob, endJob, type JobEnd, recordGroup, stopRequested } from './exec-record.js';
import { UsageMeter } from './exec-usage.js';

export { SUPERVISOR_ENV };

/**
 * How long the command may take to exit before its group is written on its own: a command over by
 * then has it written with its end. Longer, a stop waits longer for the group to signal.
 */
const QUICK_EXIT_MS = 20;

export interface SuperviseHooks {
  /** Hears the record once the start claim is made (the warm supervisor answers its claimer then). */
  claimed?: (record: JobRecord) => void;
  /**
   * Given, before the claim, what SIGTERM to this process does (end the job, `wrapper terminated`):
   * a pane that handed its job to the warm supervisor asks for it over the socket.
   */
  terminateWith?: (terminate: () => void) => void;
}

/**
 * Runs job `id` to its final record and returns exitStatusOf(final record). `command` is the one
 * `exec ID -- CMD` named (checked against the record), undefined for `exec ID`.
 */
export async function superviseJob(
  io: ProcessIO,
  id: string,
  command: readonly string[] | undefined,
  hooks: SuperviseHooks = {},
): Promise<number> {
  const { claimed } = hooks;
  const signals = new WrapperSignals();
  hooks.terminateWith?.(signals.terminate);
  try {
    const start = selfStart();
    const claim = await claimJob(io, id, command, { pid: process.pid, start });
    claimed?.(claim.record);
    const pane = jobPaneOf(io.env, claim.record);
    const reporter = pane === undefined ? undefined : new PaneReporter(io, pane, id);
    if (claim.kind === 'stopped') {
      forgetEnvironment(io, id);
      await endReservation(io, claim.record);
      await reporter?.finish(claim.record);
      return exitStatusOf(claim.record);
    }
    // Herdr hears about the start while the command already runs: the job never waits for it.
    const working = reporter?.working();
    const end = await runCommand(io, claim.record, signals);
    // Before the final record: whoever sees the job ended also finds its room free again.
    await endReservation(io, claim.record);
    const final = await endJob(io, claim.record, end);
    await working;
    await reporter?.finish(final);
    return exitStatusOf(final);
  } finally {
    signals.remove();
  }
}

async function runCommand(io: ProcessIO, record: JobRecord, signals: WrapperSignals): Promise<JobEnd> {
  const env = takeEnvironment(io, record);
  if (typeof env === 'string') return { exit_code: null, signal: null, reason: `launch failed: ${env}` };
  // The claim and the environment were read without a turn of the event loop, and a SIGTERM's
  // handler runs only on one: this turn (the poll phase, where signals are heard, comes before
  // setImmediate's) lets one that came meanwhile be heard before anything is spawned. One that
  // comes later still ends the job: onTerminate below kills what was started.
  await new Promise((resolve) => setImmediate(resolve));
  if (signals.terminated) return { exit_code: null, signal: null, reason: 'wrapper terminated' };
  const logFd = openSync(jobLogPath(io.paths, record.id), 'a', STATE_FILE_MODE);
  try {
    fchmodSync(logFd, STATE_FILE_MODE);
    const child = await startChild({
      command: record.command,
      cwd: record.cwd,
      env,
      logFd,
      timeoutMs: record.timeout_ms ?? null,
      idleTimeoutMs: record.idle_timeout_ms ?? null,
    });
    if (child.kind === 'failed') {
      io.warn(`dogsled: exec: ${child.message}`);
      return child.end;
    }
    const usage = UsageMeter.start(child.pgid);
    signals.onTerminate(() => child.kill('wrapper terminated'));
    const group = { pgid: child.pgid, pgid_start: child.start };
    // A command over at once (`true`, a quick check) has its group recorded with its end, in the
    // final record's one write: a write of the group first would stand between its end and its
    // caller's answer, a locked and synced write of the record, for a group nothing can stop any
    // more. A stop meanwhile waits for the group or the end (job-stop.ts), as it does for the write.
    if (await child.exitsWithin(QUICK_EXIT_MS)) {
      const end = await child.wait(() => stopRequested(io.paths, record.id));
      return { ...end, ...usage.finish(), ...group };
    }
    try {
      await recordGroup(io, record.id, { pgid: group.pgid, start: group.pgid_start });
    } catch (error) {
      // The job runs either way; its end is still recorded, only `stop` cannot find its group.
      io.warn(`dogsled: exec: job ${record.id}: cannot record its process group: ${messageOf(error)}`);
    }
    // A stop that read the record before the group was in it could not signal it: do it here.
    if (stopRequested(io.paths, record.id)) child.kill('stopped');
    const end = await child.wait(() => stopRequested(io.paths, record.id));
    return { ...end, ...usage.finish() };
  } finally {
    closeSync(logFd);
  }
}

/**
 * The job's environment (core/job-env.ts): the caller's, read from jobs/ID.env, which is removed
 * once read so the caller's variables are on disk only while the job waits to start. A file that
 * cannot be read is the job's failure (a string: why), never a silent run with another environment.
 * Synchronous (readEnvFileNow): it stands between the start claim and the spawn.
 */
function takeEnvironment(io: ProcessIO, record: JobRecord): Record<string, string> | string {
  let caller: Record<string, string> | undefined;
  try {
    caller = readEnvFileNow(jobEnvPath(io.paths, record.id));
  } catch (error) {
    io.warn(`dogsled: exec: job ${record.id}: ${squeezedLine(messageOf(error))}`);
    return `its environment: ${squeezedLine(messageOf(error))}`;
  }
  forgetEnvironment(io, record.id);
  return jobEnvironment(caller, io.env, record.cwd, paneVariables(io.env));
}

function forgetEnvironment(io: ProcessIO, id: string): void {
  try {
    removeEnvFileNow(jobEnvPath(io.paths, id));
  } catch (error) {
    io.warn(`dogsled: exec: job ${id}: ${squeezedLine(messageOf(error))}`);
  }
}

/** The job's room is free once it ends; trouble is one warning (the TTL still ends it). */
async function endReservation(io: ProcessIO, record: JobRecord): Promise<void> {
  const id = record.reservation;
  if (id === null || id === undefined) return;
  await endReservationsNow(io, [id]).catch((error: unknown) =>
    io.warn(
      `dogsled: exec: job ${record.id}: cannot end reservation ${id}: ${squeezedLine(messageOf(error))}`,
    ),
  );
}

/**
 * SIGTERM and SIGINT end the job (`wrapper terminated`); SIGHUP is ignored. Listeners use
 * process.on and are removed at the end (see cli/stop-signal.ts on proper-lockfile's signal-exit).
 */
class WrapperSignals {
  terminated = false;
  private onTerm: (() => void) | undefined;
  private removed = false;
  /** What SIGTERM does; nothing once the job's end is handled (remove). */
  readonly terminate = () => {
    if (this.removed) return;
    this.terminated = true;
    this.onTerm?.();
  };
  private readonly term = () => this.terminate();
  private readonly hangup = () => {};

  constructor() {
    process.on('SIGTERM', this.term);
    process.on('SIGINT', this.term);
    process.on('SIGHUP', this.hangup);
  }

  onTerminate(fn: () => void): void {
    this.onTerm = fn;
    if (this.terminated) fn();
  }

  remove(): void {
    this.removed = true;
    process.off('SIGTERM', this.term);
    process.off('SIGINT', this.term);
    process.off('SIGHUP', this.hangup);
  }
}
