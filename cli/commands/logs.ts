// `dogsled logs JOB [--follow]`: the job's output, jobs/ID.log, as the bytes exec captured. Only
// files are read, so it works after the tab closed and without Herdr. The bytes are not stripped of
// terminal escapes, on a terminal either: this is the user's own command output, which exec already
// sent raw to the job's pane, and `logs` is that same stream replayed (colours, progress bars), like
// `cat` of the file. Views that show output inside dogsled's own text (status, read) strip it.

import { EXIT } from '../../service/core/exit-codes.js';
import { copyJobLog, followJobLog } from '../../service/jobs/logs.js';
import { statePaths } from '../../service/state/paths.js';
import type { CliContext } from '../context.js';
import { untilStopped } from '../stop-signal.js';

export interface LogsFlags {
  follow?: boolean;
}

export async function logsCommand(job: string, flags: LogsFlags, ctx: CliContext): Promise<number> {
  const io = { paths: statePaths(ctx.stateDir), now: ctx.now, warn: ctx.warn };
  // A reader that went away (`logs JOB | head`) ends the copy quietly, as SIGPIPE would end `cat`.
  const ignore = () => {};
  process.stdout.on('error', ignore);
  try {
    if (!flags.follow) {
      await copyJobLog(io, job, writeStdout);
      return 0;
    }
    return await untilStopped(async (signal) => {
      try {
        await followJobLog(io, job, { write: writeStdout, signal });
        return 0;
      } catch (error) {
        // Interrupted by the user: the job is untouched; 130 as for any command ended by Ctrl-C.
        if (signal.aborted) return EXIT.interrupted;
        throw error;
      }
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    throw error;
  } finally {
    process.stdout.off('error', ignore);
  }
}

/** One chunk to stdout, resolved once it is handed to the OS (backpressure for large logs). */
function writeStdout(chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}
