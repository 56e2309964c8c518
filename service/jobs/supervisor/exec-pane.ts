// `dogsled exec ID` in a job pane (`exec ID -- CMD` also works, and checks that the record runs
// CMD): the wrapper. It refuses what must not run (an unknown job, one that started or ended,
// another command), then hands the job to the supervisor `serve` keeps warm (exec-handoff.ts) or,
// when none answers, starts a supervisor (`exec ID` with SUPERVISOR_ENV, exec-supervise.ts) in a
// session of its own, since Herdr kills the pane's whole session when the pane closes; either way it
// shows the job's log in the pane until the supervisor is done. Its exit status is the job's
// (exitStatusOf the final record). SIGTERM and SIGINT (Ctrl-C in the pane) are passed to the
// supervisor, which ends the job; SIGHUP (the pane closing) is ignored. It runs from a bundle of its
// own (cli/hot/exec-pane.ts): none of the supervisor's code is here.

import { fstatSync, statSync } from 'node:fs';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { SUPERVISOR_ENV } from '../../core/jobs/job-env.js';
import { exitStatusOf, NO_STATUS } from '../../core/jobs/job-status.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import type { ProcessIO } from '../../state/io.js';
import { jobLogPath, readJobRecord, updateJobRecord } from '../../state/records/job-records.js';
import { followJobLog, type LogWrite } from '../job-logs.js';
import { handOff } from './exec-handoff.js';
import { refusalOf } from './exec-record.js';
import { type Spawned, spawnCommand } from './exec-spawn.js';

/**
 * The pane's output: this process's stdout (its fd tells whether anything shows it). The CLI gives
 * fd 1 written directly (cli/stdout.ts): process.stdout on a terminal or pipe loads node:net and the
 * streams, a share of the wrapper's start-up.
 */
export interface PaneStream {
  fd?: number;
  write(chunk: Uint8Array, done: (error?: Error | null) => void): unknown;
}

export interface ExecPane {
  /** The argv prefix that runs this dogsled (`[node, ...execArgv, dist/dogsled.cjs]`). */
  self: readonly string[];
  /** Where the job's output is shown: the pane. */
  out: PaneStream;
}

/** The wrapper: `command` is what `exec ID -- CMD` named, undefined for `exec ID`. */
export async function execInPane(
  io: ProcessIO,
  id: string,
  command: readonly string[] | undefined,
  pane: ExecPane,
): Promise<number> {
  const record = await readJobRecord(io.paths, id);
  const refusal = refusalOf(record, command);
  if (refusal !== undefined) throw new DogsledError(refusal);
  return showJob(io, id, command, pane);
}

interface SupervisorExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The warm supervisor the job was handed to (its connection ended without an end), if any. */
  handedTo?: number;
}

async function showJob(
  io: ProcessIO,
  id: string,
  command: readonly string[] | undefined,
  pane: ExecPane,
): Promise<number> {
  // The handlers go in before anything starts, in the same synchronous run: a supervisor is in the
  // process table from its fork, while spawn() still waits for its exec, and a SIGTERM then, with
  // no handler yet, killed this wrapper and left the supervisor to run the job unasked. A signal
  // that comes while the job is being handed to the warm supervisor is passed on once it took it,
  // and one that comes before any supervisor took it ends the job here (unclaimedEnd) unstarted.
  let terminated = false;
  let stop: (() => void) | undefined;
  const forward = () => {
    terminated = true;
    stop?.();
  };
  const ignore = () => {};
  process.on('SIGTERM', forward);
  process.on('SIGINT', forward);
  process.on('SIGHUP', ignore);
  let exit: SupervisorExit;
  let final: JobRecord | undefined;
  let refusal: DogsledError | undefined;
  try {
    // The warm supervisor serve keeps takes the job when it answers (no second Node start);
    // anything else and this wrapper starts one of its own, as before (exec-handoff.ts).
    const handed = await handOff(io, id, command);
    let exited: Promise<SupervisorExit>;
    if (handed !== undefined) {
      stop = handed.terminate;
      exited = handed.ended.then((end) => {
        if (end.kind === 'exit') return { code: end.code, signal: null };
        if (end.kind === 'lost') return { code: null, signal: null, handedTo: handed.pid };
        refusal = end.error;
        return { code: end.error.exitCode, signal: null };
      });
    } else if (terminated) {
      exited = Promise.resolve({ code: null, signal: null });
    } else {
      // Spawned in this turn of the event loop (the process handle's spawn is a call; its promise
      // settles before any signal's handler can run), so `stop` is in place for the next SIGTERM.
      const started = await startSupervisor(pane, id, command, io.env);
      if (started.kind === 'failed') {
        exited = Promise.reject(started.error);
      } else {
        let over = false;
        stop = () => {
          if (over) return;
          try {
            process.kill(started.pid, 'SIGTERM');
          } catch {
            // Gone already: its end is on its way.
          }
        };
        exited = started.ended.then((end) => {
          over = true;
          return { code: end.code, signal: end.signal };
        });
      }
    }
    if (terminated) stop?.();
    // Showing the log is best effort: it never changes how the job ends or what exec returns. The
    // follow ends with the record, which the supervisor ends, or (it died) unclaimedEnd or the
    // reconciler inside the follow.
    const shown = (await nowhereToShow(io, id, pane.out))
      ? Promise.resolve()
      : followJobLog(io, id, { write: paneWriter(pane.out) }).then(
          () => undefined,
          (error: unknown) => io.warn(`dogsled: exec: job ${id}: cannot show its log: ${messageOf(error)}`),
        );
    exit = await exited.catch((error: unknown) => {
      throw new DogsledError(`exec: cannot start the job's supervisor: ${messageOf(error)}`, {
        cause: error,
      });
    });
    // A supervisor gone before it claimed the job (killed, or crashed) left it created: end it, so
    // neither this follow nor any waiter waits forever for a start.
    final = await unclaimedEnd(io, id);
    await shown;
  } finally {
    process.off('SIGTERM', forward);
    process.off('SIGINT', forward);
    process.off('SIGHUP', ignore);
  }
  // The warm supervisor's refusal, worded here as the supervisor started here words its own.
  if (refusal !== undefined) throw refusal;
  if (exit.code !== null) return exit.code;
  if (final !== undefined && final.ended_ms !== null) return exitStatusOf(final);
  // Started and not ended: the reconciler ends it `wrapper lost` once it sees the supervisor gone.
  const how =
    exit.handedTo !== undefined
      ? `the warm exec supervisor (pid ${exit.handedTo}) it was handed to went away`
      : `its exec supervisor was killed by ${exit.signal}`;
  throw new DogsledError(`job ${id}: ${how} before the job ended`, { exitCode: NO_STATUS });
}

/**
 * A supervisor of this wrapper's own, in a session of its own (the pane's closing must not end it),
 * started through the process handle as the supervisor starts its job (exec-spawn.ts): loading
 * node:child_process was some 10 M instructions of the wrapper, between the record's read and the
 * supervisor's start.
 */
function startSupervisor(
  pane: ExecPane,
  id: string,
  command: readonly string[] | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Spawned> {
  const [node, ...prefix] = pane.self;
  if (node === undefined) throw new Error('execJob: empty self invocation');
  const named = command === undefined ? [] : ['--', ...command];
  // The supervisor's stderr is the pane's: its one-line messages show there while the pane lives.
  return spawnCommand({
    file: node,
    args: [...prefix, 'exec', id, ...named],
    cwd: undefined,
    env: { ...env, [SUPERVISOR_ENV]: '1' },
    detached: true,
    stdio: ['ignore', 'ignore', 2],
  });
}

/**
 * Copies to the pane until it goes away (EPIPE, EIO: the pane closed); after that chunks are
 * dropped, since the job's output is already in the log and a view must never slow or stop it.
 */
function paneWriter(out: PaneStream): LogWrite {
  let open = true;
  return (chunk) =>
    new Promise<void>((resolve) => {
      if (!open) return resolve();
      try {
        out.write(chunk, (error) => {
          if (error) open = false;
          resolve();
        });
      } catch {
        open = false;
        resolve();
      }
    });
}

/**
 * Nothing to show when the pane's output is /dev/null, or is the job's log itself (a launcher that
 * logs the pane there must not get the log appended to itself).
 */
async function nowhereToShow(io: ProcessIO, id: string, out: PaneStream): Promise<boolean> {
  if (typeof out.fd !== 'number') return false;
  try {
    const shown = fstatSync(out.fd);
    if (shown.isCharacterDevice()) return shown.rdev === statSync('/dev/null').rdev;
    if (!shown.isFile()) return false;
    const log = statSync(jobLogPath(io.paths, id), { throwIfNoEntry: false });
    return log !== undefined && shown.dev === log.dev && shown.ino === log.ino;
  } catch {
    return false;
  }
}

/**
 * The record once the supervisor is gone. One that went before it claimed the job (a SIGTERM passed
 * on while it was still starting, or a crash) left it created: nothing runs, so it ends here as
 * `wrapper terminated` rather than waiting forever for a start.
 */
async function unclaimedEnd(io: ProcessIO, id: string): Promise<JobRecord | undefined> {
  // A record that started or ended stays so: read without the lock (the common case, a supervisor
  // that ran the job), and locked only for one that may still need its end.
  const seen = await readJobRecord(io.paths, id).catch(() => undefined);
  if (seen !== undefined && (seen.started_ms !== null || seen.ended_ms !== null)) return seen;
  const now = io.now();
  return updateJobRecord(io, id, (current) => {
    if (current === undefined || current.started_ms !== null || current.ended_ms !== null)
      return { result: current };
    const next: JobRecord = { ...current, ended_ms: now, reason: 'wrapper terminated' };
    return { result: next, next };
  });
}
