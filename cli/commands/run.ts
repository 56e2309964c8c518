// `dogsled run [--wait] [--host H] [--cwd DIR] [--timeout D] [--idle-timeout D] [--max D] -- CMD...`:
// check the request, submit it (placed now, or queued behind waiting work or a full fleet), launch a
// placed job in its own pane, and either print where it runs or, with --wait, stream its output and
// exit with its status. One --max deadline covers all of it; a wait that reaches it prints
// `still running` and exits 124, leaving the job or ticket as it is.

import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { MAX_DEFAULT_MS } from '../../service/core/budget.js';
import { parseDuration } from '../../service/core/duration.js';
import { exitStatusOf } from '../../service/core/job-status.js';
import { DogsledError, messageOf } from '../../service/errors.js';
import { checkCommand } from '../../service/jobs/command-check.js';
import { Deadline } from '../../service/jobs/deadline.js';
import { type LaunchContext, launchJob } from '../../service/jobs/launch.js';
import { followJobLog } from '../../service/jobs/logs.js';
import { type SubmitOutcome, submitWork } from '../../service/jobs/submit.js';
import { callerWorkspaceOf } from '../../service/jobs/tab-placement.js';
import { waitForTicket } from '../../service/jobs/ticket-wait.js';
import { newId } from '../../service/state/ids.js';
import type { JobRequest, Ticket } from '../../service/state/work-schemas.js';
import { openTerminal } from '../../service/terminal/open.js';
import type { TerminalPort } from '../../service/terminal/port.js';
import { mark } from '../../service/timing.js';
import type { CliContext } from '../context.js';
import { type CommandIO, commandIO } from '../io.js';

export interface RunFlags {
  wait?: boolean;
  host?: string;
  cwd?: string;
  timeout?: string;
  idleTimeout?: string;
  max?: string;
  json?: boolean;
  branch?: string;
  base?: string;
}

/** The exit status of a wait that reached its --max deadline. */
export const STILL_RUNNING = 124;

export async function runJobCommand(command: string[], flags: RunFlags, ctx: CliContext): Promise<number> {
  if (flags.branch !== undefined || flags.base !== undefined) {
    throw new DogsledError('run: --branch and --base are not available in this build yet (worktrees)');
  }
  // --max counts from the process's start, so discovery and start-up are inside it.
  const deadline = new Deadline(
    durationFlag('--max', flags.max) ?? MAX_DEFAULT_MS,
    Math.round(performance.timeOrigin),
  );
  const timeout = durationFlag('--timeout', flags.timeout);
  const idleTimeout = durationFlag('--idle-timeout', flags.idleTimeout);
  const cwd = await directoryFlag(flags.cwd);
  await checkCommand(command, cwd, ctx.env);

  const io = await commandIO(ctx);
  const owner = ctx.env.HERDR_PANE_ID || null;
  const port = await deadline.step('finding Herdr', 'routine', () =>
    openTerminal({ env: ctx.env, home: ctx.home, commandName: 'run', warn: ctx.warn }),
  );
  const callerWorkspace = await deadline.step("finding the caller's workspace", 'routine', () =>
    callerWorkspaceOf(port, owner).catch((error: unknown) => {
      ctx.warn(`dogsled: warning: run: cannot find the caller's Herdr workspace: ${messageOf(error)}`);
      return null;
    }),
  );
  const request: JobRequest = {
    command,
    cwd,
    timeout_ms: timeout ?? null,
    idle_timeout_ms: idleTimeout ?? null,
    caller_workspace: callerWorkspace,
  };
  const submission = { request, pin: flags.host ?? null, owner, waiting: Boolean(flags.wait) };
  // The signal reaches every write: a placement that ran out of time writes nothing afterwards.
  const outcome = await deadline.step('placement', 'routine', (signal) =>
    submitWork({ ...io, signal }, submission),
  );
  mark(`run: ${outcome.kind}`);
  if (outcome.kind === 'queued') return queued(outcome, io, flags, ctx, deadline);

  const launched = await launchJob(
    launchContext(io, ctx, port),
    {
      jobId: newId('j'),
      itemId: newId('i'),
      request,
      owner,
      host: outcome.host,
      ticket: null,
    },
    deadline,
  );
  const { job, item } = launched;
  mark('run: launched');
  if (flags.wait) return follow(io, job.id, deadline, ctx);
  if (flags.json) {
    ctx.out(
      `${JSON.stringify({ queued: false, job: job.id, item: item.id, host: job.host, pane: job.pane })}\n`,
    );
  } else {
    const where = job.pane === null ? 'headless' : `pane ${job.pane}`;
    ctx.out(
      `started ${job.id} on ${outcome.label} (${where}); follow it with: dogsled logs ${job.id} --follow\n`,
    );
  }
  return 0;
}

function launchContext(io: CommandIO, ctx: CliContext, port: TerminalPort): LaunchContext {
  return {
    paths: io.paths,
    now: io.now,
    warn: io.warn,
    env: ctx.env,
    home: ctx.home,
    terminal: async () => port,
  };
}

/** Prints the ticket; without --wait that is all (exit 1), with it the caller waits for admission. */
async function queued(
  outcome: Extract<SubmitOutcome, { kind: 'queued' }>,
  io: CommandIO,
  flags: RunFlags,
  ctx: CliContext,
  deadline: Deadline,
): Promise<number> {
  const { ticket } = outcome;
  ctx.out(`${JSON.stringify({ queued: true, ticket: ticket.id })}\n`);
  ctx.warn(`dogsled: run: queued as ${ticket.id}: ${whyQueued(outcome)}`);
  if (!flags.wait) return 1;
  const signal = AbortSignal.timeout(deadline.remaining());
  let settled: Ticket;
  try {
    settled = await waitForTicket(io, ticket.id, { signal });
  } catch (error) {
    if (signal.aborted) return stillRunning(ctx, `ticket ${ticket.id} is still pending`);
    throw error;
  }
  if (settled.state === 'failed') {
    throw new DogsledError(`run: ticket ${ticket.id} failed: ${settled.error ?? 'no reason given'}`);
  }
  if (settled.state === 'cancelled') throw new DogsledError(`run: ticket ${ticket.id} was cancelled`);
  if (settled.job === null) throw new DogsledError(`run: ticket ${ticket.id} was admitted without a job`);
  return follow(io, settled.job, deadline, ctx);
}

function whyQueued(outcome: Extract<SubmitOutcome, { kind: 'queued' }>): string {
  if (outcome.behind > 0) {
    return `${outcome.behind} earlier ticket${outcome.behind === 1 ? '' : 's'} wait${outcome.behind === 1 ? 's' : ''} for the same host`;
  }
  const why = outcome.refusals.map((r) => `${r.label}: ${r.reason.join('; ')}`).join(' | ');
  return `no host has room (${why})`;
}

/** Streams the job's output as it is written and returns its exit status, or 124 at the deadline. */
async function follow(io: CommandIO, jobId: string, deadline: Deadline, ctx: CliContext): Promise<number> {
  const signal = AbortSignal.timeout(deadline.remaining());
  try {
    const record = await followJobLog(io, jobId, { write: writeStdout, signal });
    mark('run: job ended');
    return exitStatusOf(record);
  } catch (error) {
    if (signal.aborted)
      return stillRunning(ctx, `job ${jobId} keeps running: dogsled logs ${jobId} --follow`);
    throw error;
  }
}

function stillRunning(ctx: CliContext, detail: string): number {
  ctx.out('still running\n');
  ctx.warn(`dogsled: run: --max reached; ${detail}`);
  return STILL_RUNNING;
}

/** The job's bytes, unchanged, with backpressure: a slow reader slows the copy, never memory. */
function writeStdout(chunk: Uint8Array): Promise<void> {
  return new Promise((done, fail) => {
    process.stdout.write(chunk, (error) => (error ? fail(error) : done()));
  });
}

function durationFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new DogsledError(`run: ${flag}: ${parsed.error}`);
  if (parsed.ms === 0) throw new DogsledError(`run: ${flag}: must be longer than 0`);
  return parsed.ms;
}

/** --cwd as an absolute real path; it must be an existing directory. */
async function directoryFlag(text: string | undefined): Promise<string> {
  const path = resolve(text ?? '.');
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new DogsledError(`run: --cwd: no such directory: ${path}`);
  }
  if (!(await stat(real)).isDirectory()) throw new DogsledError(`run: --cwd: not a directory: ${path}`);
  return real;
}
