// `dogsled run [--wait] [--host H] [--cwd DIR] [--timeout D] [--idle-timeout D] [--max D] -- CMD...`:
// runs the command as a job (service/actions/run.ts: check, submit, launch, follow) and renders
// what happened: where it runs, its ticket when it queued (exit 1), or with --wait its output and
// its exit status. One --max deadline covers all of it; a wait that reaches it prints
// `still running` and exits 124, leaving the job or ticket as it is.

import { Deadline } from '../../service/actions/call-budget.js';
import {
  checkArgumentsText,
  type JobRecord,
  type LogWrite,
  type RunJobOutcome,
  runJob,
} from '../../service/actions/run.js';
import type { UserIO } from '../../service/actions/verb-io.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { EXIT } from '../../service/core/common/exit-codes.js';
import { exitStatusOf } from '../../service/core/jobs/job-status.js';
import type { CliContext } from '../context.js';
import { cwdFlag, hostFlag, maxFlag, optionalDurationFlag } from '../flags.js';
import { hostIO } from '../io.js';
import type { RunEnded, RunStarted, RunStillRunning, StillQueued } from '../output-schemas.js';
import { queuedLine, staysQueued, whyQueued } from '../render/queued.js';
import { untilStopped } from '../stop-signal.js';

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
  if (flags.base !== undefined && flags.branch === undefined) throw new DogsledError('--base needs --branch');
  const deadline = Deadline.fromProcessStart(maxFlag(flags.max));
  const timeout = optionalDurationFlag('--timeout', flags.timeout);
  const idleTimeout = optionalDurationFlag('--idle-timeout', flags.idleTimeout);
  const pin = hostFlag(flags.host);
  // Arguments Node could not decode are refused before anything else is read (command-check.ts).
  await checkArgumentsText(process.argv.slice(2));
  const cwd = await cwdFlag(flags.cwd);
  const io = await hostIO(ctx);
  const request = {
    command,
    cwd,
    timeoutMs: timeout ?? null,
    idleTimeoutMs: idleTimeout ?? null,
    pin,
    wait: Boolean(flags.wait),
    branch: flags.branch === undefined ? null : { name: flags.branch, base: flags.base ?? null },
  };
  const user: UserIO = {
    // The spec prints the ticket as JSON (--json); a --json wait keeps stdout for its one final
    // document, and a human wait for the job's output.
    queued: (queued) => {
      if (!flags.json && !flags.wait) {
        ctx.out(`${queuedLine(queued)}\n`);
        return;
      }
      if (!flags.wait) ctx.out(`${JSON.stringify({ queued: true, ticket: queued.ticket.id })}\n`);
      const waiting = flags.wait ? '; waiting for its admission' : '';
      ctx.warn(`dogsled: run: queued as ${queued.ticket.id}: ${whyQueued(queued)}${waiting}`);
    },
    untilStopped,
    // With --json the job's output goes to stderr, so stdout holds only the final document.
    // The stream is opened at the job's first byte, not before: a job that prints nothing (`true`,
    // a quiet check) then loads neither Node's streams nor, for a pipe, node:net (cli/stdout.ts).
    output: flags.json ? writeTo(() => process.stderr) : writeTo(() => process.stdout),
  };
  const outcome = await runJob({ ...io, ...user }, request, deadline);
  return render(outcome, flags, ctx);
}

function render(outcome: RunJobOutcome, flags: RunFlags, ctx: CliContext): number {
  switch (outcome.kind) {
    case 'queued':
      return EXIT.queued;
    case 'started': {
      const { job, item } = outcome;
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
    case 'ended': {
      const { record } = outcome;
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
    }
    case 'still-running': {
      const id = outcome.record.id;
      const doc: RunStillRunning = { ...jobDoc(outcome.record), still_running: true };
      return stillRunning(ctx, flags, doc, `job ${id} keeps running: dogsled logs ${id} --follow`);
    }
    case 'still-queued': {
      const id = outcome.ticket.id;
      if (outcome.why === 'interrupted') {
        ctx.warn(staysQueued('run', id, 'interrupted'));
        return EXIT.interrupted;
      }
      const doc: StillQueued = { queued: true, ticket: id, still_running: true };
      ctx.out(flags.json ? `${JSON.stringify(doc)}\n` : 'still running\n');
      ctx.warn(staysQueued('run', id, 'deadline'));
      return EXIT.stillRunning;
    }
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
function writeTo(stream: () => NodeJS.WriteStream): LogWrite {
  return (chunk) =>
    new Promise<void>((done, fail) => {
      stream().write(chunk, (error) => (error ? fail(error) : done()));
    });
}
