// `dogsled stop JOB [--json]`: asks the job to stop and kills its process group (stop.ts in
// service/jobs holds how). Stopping a job that already ended, or whose group is already gone, is not
// an error: the result says what happened, as one line or as the record with --json.

import { DogsledError } from '../../service/errors.js';
import { STOP_GRACE_MS, stopJob } from '../../service/jobs/stop.js';
import { statePaths } from '../../service/state/paths.js';
import type { CliContext } from '../context.js';
import { renderStopOutcome } from '../render/jobs-human.js';

export interface StopFlags {
  json?: boolean;
}

export async function stopCommand(job: string, flags: StopFlags, ctx: CliContext): Promise<number> {
  const io = { paths: statePaths(ctx.stateDir), now: ctx.now, warn: ctx.warn };
  const outcome = await stopJob(io, job, { graceMs: graceFromEnv(ctx.env) });
  ctx.out(flags.json ? `${JSON.stringify(outcome.record, null, 2)}\n` : `${renderStopOutcome(outcome)}\n`);
  return 0;
}

/**
 * The SIGTERM grace, shortened only in tests: DOGSLED_TEST_STOP_GRACE_MS counts only together with
 * DOGSLED_TEST=1 (like the test clock), so a stray variable never changes a real stop.
 */
function graceFromEnv(env: NodeJS.ProcessEnv): number {
  const text = env.DOGSLED_TEST_STOP_GRACE_MS;
  if (env.DOGSLED_TEST !== '1' || text === undefined || text === '') return STOP_GRACE_MS;
  if (!/^\d+$/.test(text)) throw new DogsledError(`DOGSLED_TEST_STOP_GRACE_MS: "${text}" is not an integer`);
  return Number(text);
}
