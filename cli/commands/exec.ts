// `dogsled exec ID [-- CMD]`: the job wrapper a job pane runs (service/actions/exec-action.ts). A closed pane
// must never kill it, so writes to a stdout or stderr that went away are ignored here.

import { type ExecPane, execInPane, execJob, type ProcessIO } from '../../service/actions/exec-action.js';
import { plainLine } from '../../service/core/text/clean.js';
import type { CliContext } from '../context.js';
import { writeAll, writeErrQuietly } from '../stdout.js';

/** `command` is undefined (or empty) for `exec ID`, which runs the record's own command. */
export function execCommand(id: string, command: string[] | undefined, ctx: CliContext): Promise<number> {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  return execJob(ctx, id, named(command), {
    self: selfInvocation(),
    out: process.stdout,
    input: () => process.stdin,
  });
}

/**
 * The pane's wrapper alone (cli/hot/exec-pane.ts): what `exec` is without DOGSLED_EXEC_SUPERVISOR.
 * The log goes to fd 1 directly and warnings to fd 2 (cli/stdout.ts says why): process.stdout and
 * process.stderr on the pane's terminal would load node:net and the streams for nothing. A write
 * that fails (the pane closed) is the pane gone, never a crash.
 */
export function execPaneCommand(id: string, command: string[] | undefined, ctx: CliContext): Promise<number> {
  const pane: ExecPane = {
    self: selfInvocation(),
    out: {
      fd: 1,
      write(chunk, done) {
        try {
          writeAll(chunk);
        } catch (error) {
          done(error as Error);
          return;
        }
        done();
      },
    },
  };
  // Not a spread of ctx: its stdoutIsTTY getter would make process.stdout.
  const io: ProcessIO = {
    paths: ctx.paths,
    now: ctx.now,
    env: ctx.env,
    home: ctx.home,
    warn: (line) => writeErrQuietly(`${plainLine(line)}\n`),
  };
  return execInPane(io, id, named(command), pane);
}

function named(command: string[] | undefined): string[] | undefined {
  return command === undefined || command.length === 0 ? undefined : command;
}

function selfInvocation(): string[] {
  const entry = process.argv[1];
  if (entry === undefined) throw new Error('exec: no script path in argv');
  return [process.execPath, ...process.execArgv, entry];
}
