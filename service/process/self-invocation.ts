// How a job pane calls dogsled back: the running node binary and the real path of the CLI entry
// (dist/dogsled.cjs) that this process was started from, so `run` and the service launch the exec
// wrapper of their own build whatever PATH the pane's shell has.

import { realpathSync } from 'node:fs';
import { DogsledError } from '../core/common/errors.js';

/** `[node, /real/path/dist/dogsled.cjs]`: the argv prefix that runs this dogsled. */
export function selfInvocation(entry: string | undefined = process.argv[1]): string[] {
  if (entry === undefined || entry === '') {
    throw new DogsledError('cannot tell which dogsled to run in the job pane: no script path in argv');
  }
  let real: string;
  try {
    real = realpathSync(entry);
  } catch (error) {
    throw new DogsledError(`cannot resolve the dogsled entry ${entry}: ${(error as Error).message}`);
  }
  return [process.execPath, real];
}

/**
 * The pane's argv: `<node> <dogsled.cjs> exec ID`. Only the job id: the command, its directory and
 * the caller's environment travel in the job's files, so no argument has to survive being typed
 * into a shell (a newline would submit the line early) and no secret reaches a command line.
 */
export function execArgv(self: readonly string[], jobId: string): string[] {
  return [...self, 'exec', jobId];
}

/** A warm supervisor's argv names no job (its claim does): `exec warm` (exec-warm.ts). */
export const WARM_ID = 'warm';

/**
 * Set (to `1`) in the environment of `exec`'s supervisor: by the pane's exec, or by a headless
 * launch that has no pane. Never passed on to the job.
 */
export { SUPERVISOR_ENV } from '../core/jobs/job-env.js';
