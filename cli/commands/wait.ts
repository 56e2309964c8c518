// `dogsled wait JOB|TICKET [--max D]`: waits for the job's final record and exits with its status
// (exit code, else 128 + signal, else 125: ended without a status). A ticket is followed to its job:
// a queued one is waited for until the service admits it, under the same deadline. At the deadline
// (default 30m) it prints `still running` and exits 124; a wait never cancels or signals its job.

import { MAX_DEFAULT_MS } from '../../service/core/budget.js';
import { parseDuration } from '../../service/core/duration.js';
import { exitStatusOf } from '../../service/core/job-status.js';
import { DogsledError } from '../../service/errors.js';
import { type JobRef, noJob, resolveJobRef, settledRef } from '../../service/jobs/job-ref.js';
import { waitForJob } from '../../service/jobs/wait.js';
import { readJobRecord } from '../../service/state/job-records.js';
import { statePaths } from '../../service/state/paths.js';
import type { CliContext } from '../context.js';
import { untilStopped } from '../stop-signal.js';

export interface WaitFlags {
  max?: string;
}

/** The spec's status for a wait that reached its deadline. */
export const STILL_RUNNING_STATUS = 124;

/** Node timers overflow past 2^31 - 1 ms (24.8 days) and would fire at once: a longer --max is that. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export async function waitCommand(ref: string, flags: WaitFlags, ctx: CliContext): Promise<number> {
  const maxMs = parseMax(flags.max);
  const io = { paths: statePaths(ctx.stateDir), now: ctx.now, warn: ctx.warn };
  // An unknown job or ticket is an error before any waiting starts.
  let target: JobRef = await resolveJobRef(io, ref);
  const deadline = AbortSignal.timeout(Math.min(maxMs, LONGEST_TIMER_MS));
  return untilStopped(async (stopped) => {
    const signal = AbortSignal.any([deadline, stopped]);
    try {
      if (target.kind === 'waiting') target = await settledRef(io, target.ticket, signal);
      if (target.kind !== 'job') throw noJob('wait', target);
      return exitStatusOf(await waitForJob(io, target.id, { signal }));
    } catch (error) {
      if (stopped.aborted) return 130;
      if (!deadline.aborted) throw error;
      // A job that ended just as the deadline fired has a status to return.
      if (target.kind === 'job') {
        const last = await readJobRecord(io.paths, target.id);
        if (last.ended_ms !== null) return exitStatusOf(last);
      }
      ctx.out('still running\n');
      return STILL_RUNNING_STATUS;
    }
  });
}

function parseMax(text: string | undefined): number {
  if (text === undefined) return MAX_DEFAULT_MS;
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new DogsledError(`wait: --max: ${parsed.error}`);
  return parsed.ms;
}
