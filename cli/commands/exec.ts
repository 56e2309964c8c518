// `dogsled exec ID [-- CMD]`: the job wrapper a job pane runs (service/actions/exec-action.ts). A closed pane
// must never kill it, so writes to a stdout or stderr that went away are ignored here.

import { type ExecPane, execInPane, execJob, type ProcessIO } from '../../service/actions/exec-action.js';
import { plainLine } from '../../service/core/text/clean.js';
import type { CliContext } from '../context.js';
import { writeAll, writeErrQuietly } from '../stdout.js';

/**
 * `command` is undefined (or empty) for `exec ID`, which runs the record's own command. With
 * DOGSLED_EXEC_SUPERVISOR it is the job's supervisor (cli/hot/exec.ts), which writes as the pane's
 * wrapper does (execPaneCommand): fd 1 and fd 2 directly, never process.stdout or process.stderr,
 * whose first use loads the stream modules (and node:net for a pipe), a fifth of its start-up.
 * Its stdin is asked for only by a standby or warm supervisor, which listens on it.
 */
export async function execCommand(
  id: string,
  command: string[] | undefined,
  ctx: CliContext,
): Promise<number> {
  try {
    return await execJob(directIO(ctx), id, named(command), {
      self: selfInvocation(),
      out: fdOne,
      input: () => process.stdin,
    });
  } catch (error) {
    // report.ts prints it on process.stderr: one that went away must not crash the report.
    process.stderr.on('error', () => {});
    throw error;
  }
}

/**
 * The pane's wrapper alone (cli/hot/exec-pane.ts): what `exec` is without DOGSLED_EXEC_SUPERVISOR.
 * The log goes to fd 1 directly and warnings to fd 2 (cli/stdout.ts says why): process.stdout and
 * process.stderr on the pane's terminal would load node:net and the streams for nothing. A write
 * that fails (the pane closed) is the pane gone, never a crash.
 */
export function execPaneCommand(id: string, command: string[] | undefined, ctx: CliContext): Promise<number> {
  return execInPane(directIO(ctx), id, named(command), { self: selfInvocation(), out: fdOne });
}

/** Fd 1, written whole; a write that fails is told to `done`, never thrown. */
const fdOne: ExecPane['out'] = {
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
};

/** The context's ProcessIO with warnings on fd 2, dropped once stderr is gone. */
function directIO(ctx: CliContext): ProcessIO {
  // Not a spread of ctx: its stdoutIsTTY getter would make process.stdout.
  return {
    paths: ctx.paths,
    now: ctx.now,
    env: ctx.env,
    home: ctx.home,
    warn: (line) => writeErrQuietly(`${plainLine(line)}\n`),
  };
}

function named(command: string[] | undefined): string[] | undefined {
  return command === undefined || command.length === 0 ? undefined : command;
}

function selfInvocation(): string[] {
  const entry = process.argv[1];
  if (entry === undefined) throw new Error('exec: no script path in argv');
  return [process.execPath, ...process.execArgv, entry];
}
