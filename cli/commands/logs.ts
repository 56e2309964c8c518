// `dogsled logs JOB|TICKET [--follow]`: the job's output, jobs/ID.log, as the bytes exec captured,
// here or from the peer that runs it (service/actions/logs.ts). Only files are read, so it works
// after the tab closed and without Herdr.
// A ticket is followed to its job; one still queued has no output yet: `logs` says so and exits 1
// (queued, as `run` does), and `logs --follow` waits for its admission, then follows the job. The
// bytes are not stripped of terminal escapes, on a terminal either: this is the user's own command
// output, which exec already sent raw to the job's pane, and `logs` is that same stream replayed
// (colours, progress bars), like `cat` of the file. Views that show output inside dogsled's own text
// (status, read) strip it.

import { type LogsOutcome, readJobLogs } from '../../service/actions/logs.js';
import { EXIT } from '../../service/core/common/exit-codes.js';
import type { CliContext } from '../context.js';
import { lazyHostIO } from '../io.js';
import { untilStopped } from '../stop-signal.js';

export interface LogsFlags {
  follow?: boolean;
}

/** The status of `logs` on a ticket still waiting for admission: queued, as for `run`. */
export const QUEUED_STATUS = EXIT.queued;

export async function logsCommand(ref: string, flags: LogsFlags, ctx: CliContext): Promise<number> {
  const follow = Boolean(flags.follow);
  // A reader that went away (`logs JOB | head`) ends the copy quietly, as SIGPIPE would end `cat`.
  const ignore = () => {};
  process.stdout.on('error', ignore);
  let outcome: LogsOutcome;
  try {
    outcome = await readJobLogs(lazyHostIO(ctx, { output: writeStdout, untilStopped }), ref, { follow });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    throw error;
  } finally {
    process.stdout.off('error', ignore);
  }
  if (outcome.kind === 'queued') {
    const { ticket } = outcome;
    const state = ticket.state === 'pending' ? 'queued' : 'being admitted';
    ctx.warn(
      `dogsled: logs: ticket ${ticket.id} is ${state}: its job has not started (dogsled logs ${ticket.id} --follow waits for it)`,
    );
    return QUEUED_STATUS;
  }
  // Interrupted by the user: the job is untouched; 130 as for any command ended by Ctrl-C.
  return outcome.kind === 'interrupted' ? EXIT.interrupted : 0;
}

/** One chunk to stdout, resolved once it is handed to the OS (backpressure for large logs). */
function writeStdout(chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}
