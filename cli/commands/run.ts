// `dogsled run [--wait] [--host H] [--cwd DIR] [--timeout D] [--idle-timeout D] [--max D] -- CMD...`:
// check the request, submit it (placed now, or queued behind waiting work or a full fleet), launch a
// placed job in its own pane, and either print where it runs or, with --wait, stream its output and
// exit with its status. One --max deadline covers all of it; a wait that reaches it prints
// `still running` and exits 124, leaving the job or ticket as it is.

import { EXIT } from '../../service/core/exit-codes.js';
import { callerEnvironment } from '../../service/core/job-env.js';
import { exitStatusOf } from '../../service/core/job-status.js';
import { DogsledError, messageOf } from '../../service/errors.js';
import { checkArgumentsText, checkCommand } from '../../service/jobs/command-check.js';
import { Deadline } from '../../service/jobs/deadline.js';
import { type LaunchContext, launchJob } from '../../service/jobs/launch.js';
import { followJobLog, type LogWrite } from '../../service/jobs/logs.js';
import { type SubmitOutcome, submitWork } from '../../service/jobs/submit.js';
import { callerWorkspaceOf } from '../../service/jobs/tab-placement.js';
import { newId } from '../../service/state/ids.js';
import { type JobRecord, readJobRecord } from '../../service/state/job-records.js';
import type { JobRequest } from '../../service/state/work-schemas.js';
import { callerPane } from '../../service/terminal/herdr-env.js';
import { openTerminal } from '../../service/terminal/open.js';
import type { TerminalPort } from '../../service/terminal/port.js';
import { mark } from '../../service/timing.js';
import type { CliContext } from '../context.js';
import { cwdFlag, hostFlag, maxFlag, optionalDurationFlag } from '../flags.js';
import { type CommandIO, commandIO } from '../io.js';
import type { Queued, RunEnded, RunStarted, RunStillRunning, StillQueued } from '../output-schemas.js';
import { awaitTicket } from '../ticket-wait.js';

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

export async function runJobCommand(command: string[], flags: RunFlags, ctx: CliContext): Promise<number> {
  if (flags.branch !== undefined || flags.base !== undefined) {
    throw new DogsledError('--branch and --base are not available in this build yet (worktrees)');
  }
  const deadline = Deadline.fromProcessStart(maxFlag(flags.max));
  const timeout = optionalDurationFlag('--timeout', flags.timeout);
  const idleTimeout = optionalDurationFlag('--idle-timeout', flags.idleTimeout);
  const pin = hostFlag(flags.host);
  await checkArgumentsText(process.argv.slice(2));
  const cwd = await cwdFlag(flags.cwd);
  await checkCommand(command, cwd, ctx.env);
  // The job runs with the caller's environment, under Herdr as headless (core/job-env.ts).
  const env = callerEnvironment(ctx.env);

  const io = await commandIO(ctx);
  const owner = callerPane(ctx.env);
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
  const submission = { request, pin, owner, waiting: Boolean(flags.wait), env };
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
      reservation: outcome.reservation.id,
      env,
    },
    deadline,
  );
  const { job, item } = launched;
  mark('run: launched');
  if (flags.wait) return follow(io, job.id, deadline, flags, ctx);
  if (flags.json) {
    const doc: RunStarted = { queued: false, job: job.id, item: item.id, host: job.host, pane: job.pane };
    ctx.out(`${JSON.stringify(doc)}\n`);
  } else {
    const where = job.pane === null ? 'headless' : `pane ${job.pane}`;
    ctx.out(
      `started ${job.id} on ${outcome.label} (${where}); follow it with: dogsled logs ${job.id} --follow\n`,
    );
  }
  return EXIT.ok;
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

/**
 * Prints the ticket; without --wait that is all (exit 1), with it the caller waits for admission,
 * then follows the job. A --json wait prints only its final document.
 */
async function queued(
  outcome: Extract<SubmitOutcome, { kind: 'queued' }>,
  io: CommandIO,
  flags: RunFlags,
  ctx: CliContext,
  deadline: Deadline,
): Promise<number> {
  const ticket: Queued = { queued: true, ticket: outcome.ticket.id };
  if (!(flags.wait && flags.json)) ctx.out(`${JSON.stringify(ticket)}\n`);
  ctx.warn(`dogsled: run: queued as ${ticket.ticket}: ${whyQueued(outcome)}`);
  if (!flags.wait) return EXIT.queued;
  const admitted = await awaitTicket(io, ticket.ticket, deadline);
  if (admitted === undefined) {
    const still: StillQueued = { ...ticket, still_running: true };
    return stillRunning(ctx, flags, still, `ticket ${ticket.ticket} is still pending`);
  }
  if (admitted.job === null) throw new DogsledError(`ticket ${ticket.ticket} was admitted without a job`);
  return follow(io, admitted.job, deadline, flags, ctx);
}

function whyQueued(outcome: Extract<SubmitOutcome, { kind: 'queued' }>): string {
  if (outcome.behind > 0) {
    return `${outcome.behind} earlier ticket${outcome.behind === 1 ? '' : 's'} wait${outcome.behind === 1 ? 's' : ''} for the same host`;
  }
  const why = outcome.refusals.map((r) => `${r.label}: ${r.reason.join('; ')}`).join(' | ');
  return `no host has room (${why})`;
}

/**
 * Streams the job's output as it is written and returns its exit status, or 124 at the deadline.
 * With --json the output goes to stderr, so stdout holds only the final document.
 */
async function follow(
  io: CommandIO,
  jobId: string,
  deadline: Deadline,
  flags: RunFlags,
  ctx: CliContext,
): Promise<number> {
  const signal = deadline.signal();
  const write = flags.json ? writeTo(process.stderr) : writeTo(process.stdout);
  try {
    const record = await followJobLog(io, jobId, { write, signal });
    mark('run: job ended');
    if (flags.json) {
      const doc: RunEnded = {
        ...jobDoc(record),
        status: exitStatusOf(record),
        exit_code: record.exit_code,
        signal: record.signal,
        reason: record.reason,
      };
      ctx.out(`${JSON.stringify(doc)}\n`);
    }
    return exitStatusOf(record);
  } catch (error) {
    if (!signal.aborted) throw error;
    const still: RunStillRunning = { ...jobDoc(await readJobRecord(io.paths, jobId)), still_running: true };
    return stillRunning(ctx, flags, still, `job ${jobId} keeps running: dogsled logs ${jobId} --follow`);
  }
}

function jobDoc(record: JobRecord): Omit<RunStillRunning, 'still_running'> {
  return {
    queued: false,
    ticket: record.ticket ?? null,
    job: record.id,
    item: record.item ?? null,
    host: record.host,
    pane: record.pane,
  };
}

/** `still running` (or its document with --json), exit 124; the job or ticket is left as it is. */
function stillRunning(
  ctx: CliContext,
  flags: RunFlags,
  doc: StillQueued | RunStillRunning,
  detail: string,
): number {
  ctx.out(flags.json ? `${JSON.stringify(doc)}\n` : 'still running\n');
  ctx.warn(`dogsled: run: --max reached; ${detail}`);
  return EXIT.stillRunning;
}

/** The job's bytes, unchanged, with backpressure: a slow reader slows the copy, never memory. */
function writeTo(stream: NodeJS.WriteStream): LogWrite {
  return (chunk) =>
    new Promise<void>((done, fail) => {
      stream.write(chunk, (error) => (error ? fail(error) : done()));
    });
}
