// `dogsled exec ID [-- CMD]`: the job wrapper a job pane runs (service/actions/exec-action.ts). A closed pane
// must never kill it, so writes to a stdout or stderr that went away are ignored here.

import { execJob } from '../../service/actions/exec-action.js';
import type { CliContext } from '../context.js';

/** `command` is undefined (or empty) for `exec ID`, which runs the record's own command. */
export async function execCommand(
  id: string,
  command: string[] | undefined,
  ctx: CliContext,
): Promise<number> {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  const entry = process.argv[1];
  if (entry === undefined) throw new Error('exec: no script path in argv');
  return execJob(ctx, id, command === undefined || command.length === 0 ? undefined : command, {
    self: [process.execPath, ...process.execArgv, entry],
    out: process.stdout,
    input: () => process.stdin,
  });
}
