// `dogsled wait JOB|TICKET [--max D]`: waits for the job's final record and exits with its status
// (exit code, else 128 + signal, else 125: ended without a status). A ticket is followed to its job:
// a queued one is waited for until the service admits it, under the same deadline. At the deadline
// (default 30m from the command's start) it prints `still running` and exits 124; a wait never
// cancels or signals its job.

import { EXIT } from '../../service/core/exit-codes.js';
import { exitStatusOf } from '../../service/core/job-status.js';
import { type JobRef, noJob, resolveJobRef, settledRef } from '../../service/jobs/job-ref.js';
import { waitForJob } from '../../service/jobs/wait.js';
import { readJobRecord } from '../../service/state/job-records.js';
import { Deadline } from '../../service/work/deadline.js';
import type { CliContext } from '../context.js';
import { maxFlag } from '../flags.js';
import { stateIO } from '../io.js';
import { untilStopped } from '../stop-signal.js';

export interface WaitFlags {
  max?: string;
}

export async function waitCommand(ref: string, flags: WaitFlags, ctx: CliContext): Promise<number> {
  const deadline = Deadline.fromProcessStart(maxFlag(flags.max)).signal();
  const io = stateIO(ctx);
  // An unknown job or ticket is an error before any waiting starts.
  let target: JobRef = await resolveJobRef(io, ref);
  return untilStopped(async (stopped) => {
    const signal = AbortSignal.any([deadline, stopped]);
    try {
      if (target.kind === 'waiting') target = await settledRef(io, target.ticket, signal);
      if (target.kind !== 'job') throw noJob('wait', target);
      return exitStatusOf(await waitForJob(io, target.id, { signal }));
    } catch (error) {
      if (stopped.aborted) return EXIT.interrupted;
      if (!deadline.aborted) throw error;
      // A job that ended just as the deadline fired has a status to return.
      if (target.kind === 'job') {
        const last = await readJobRecord(io.paths, target.id);
        if (last.ended_ms !== null) return exitStatusOf(last);
      }
      ctx.out('still running\n');
      return EXIT.stillRunning;
    }
  });
}
