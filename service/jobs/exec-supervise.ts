// The exec supervisor: the process that owns a job from start to final record. The pane's `exec`
// starts it in a session of its own, so closing the pane (Herdr kills the pane's whole session)
// leaves it running: it claims the record, runs the command with its timeouts, saves the final
// record, reports the end to Herdr and closes the job's tab. SIGTERM or SIGINT kill the job's group
// and end the record `wrapper terminated`; SIGHUP is ignored.

import { closeSync, fchmodSync, openSync } from 'node:fs';
import { exitStatusOf } from '../core/job-status.js';
import { messageOf } from '../errors.js';
import { type JobRecord, jobLogPath } from '../state/job-records.js';
import { STATE_FILE_MODE } from '../state/paths.js';
import { procStat } from '../terminal/proc.js';
import { startChild } from './exec-child.js';
import { claimJob, endJob, type JobEnd, type RecordIO, recordGroup, stopRequested } from './exec-record.js';
import { jobPaneOf, PaneReporter } from './exec-report.js';
import { SUPERVISOR_ENV } from './self.js';

export { SUPERVISOR_ENV };

export interface ExecIO extends RecordIO {
  env: NodeJS.ProcessEnv;
  home: string;
}

/** Runs job `id` to its final record and returns exitStatusOf(final record). */
export async function superviseJob(io: ExecIO, id: string, command: readonly string[]): Promise<number> {
  const signals = new WrapperSignals();
  try {
    const start = (await procStat(process.pid))?.start ?? null;
    const claim = await claimJob(io, id, command, { pid: process.pid, start });
    const pane = jobPaneOf(io.env, claim.record);
    const reporter = pane === undefined ? undefined : new PaneReporter(io, pane, id);
    if (claim.kind === 'stopped') {
      await reporter?.finish(claim.record);
      return exitStatusOf(claim.record);
    }
    // Herdr hears about the start while the command already runs: the job never waits for it.
    const working = reporter?.working();
    const end = await runCommand(io, claim.record, signals);
    const final = await endJob(io, claim.record, end);
    await working;
    await reporter?.finish(final);
    return exitStatusOf(final);
  } finally {
    signals.remove();
  }
}

async function runCommand(io: ExecIO, record: JobRecord, signals: WrapperSignals): Promise<JobEnd> {
  if (signals.terminated) return { exit_code: null, signal: null, reason: 'wrapper terminated' };
  const logFd = openSync(jobLogPath(io.paths, record.id), 'a', STATE_FILE_MODE);
  try {
    fchmodSync(logFd, STATE_FILE_MODE);
    const child = await startChild({
      command: record.command,
      cwd: record.cwd,
      env: jobEnv(io.env),
      logFd,
      timeoutMs: record.timeout_ms ?? null,
      idleTimeoutMs: record.idle_timeout_ms ?? null,
    });
    if (child.kind === 'failed') {
      io.warn(`dogsled: exec: ${child.message}`);
      return child.end;
    }
    signals.onTerminate(() => child.kill('wrapper terminated'));
    try {
      await recordGroup(io, record.id, { pgid: child.pgid, start: child.start });
    } catch (error) {
      // The job runs either way; its end is still recorded, only `stop` cannot find its group.
      io.warn(`dogsled: exec: job ${record.id}: cannot record its process group: ${messageOf(error)}`);
    }
    // A stop that read the record before the group was in it could not signal it: do it here.
    if (stopRequested(io.paths, record.id)) child.kill('stopped');
    return await child.wait(() => stopRequested(io.paths, record.id));
  } finally {
    closeSync(logFd);
  }
}

/** The job's environment: the pane's, without the supervisor marker. */
function jobEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy[SUPERVISOR_ENV];
  return copy;
}

/**
 * SIGTERM and SIGINT end the job (`wrapper terminated`); SIGHUP is ignored. Listeners use
 * process.on and are removed at the end (see cli/stop-signal.ts on write-file-atomic's signal-exit).
 */
class WrapperSignals {
  terminated = false;
  private onTerm: (() => void) | undefined;
  private readonly term = () => {
    this.terminated = true;
    this.onTerm?.();
  };
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
    process.off('SIGTERM', this.term);
    process.off('SIGINT', this.term);
    process.off('SIGHUP', this.hangup);
  }
}
