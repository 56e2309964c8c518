// A launched job's environment (jobs/ID.env) as `run` writes it on every launch, in a module of its
// own: env-files.ts, which reads these files and writes a ticket's, checks them with EnvFileSchema,
// and importing it put zod and the store on `run`'s path. The record written here is checked by
// hand (EnvFileCheck): what callerEnvironment builds is a plain object of strings, which the hand
// check and the schema judge alike (hand-checks.test.ts).

import { mkdirSync } from 'node:fs';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { squeezedLine } from '../../core/text/clean.js';
import { EnvFileCheck } from '../checks/queue-items-check.js';
import { writeNow } from '../engine/update-now.js';
import { STATE_DIR_MODE, STATE_FILE_MODE, type StatePaths } from '../paths.js';
import { jobEnvPath } from './job-records.js';

/**
 * Writes a launched job's environment (jobs/ID.env) at once, renamed into place whole but not
 * synced: the one reader of this file is the job's own supervisor, which reads and removes it as it
 * starts the job, so it lives a few milliseconds. A power failure that could lose the text kills
 * that supervisor and its job too; after the reboot nothing reads the file (the job is ended as
 * lost, never started from it) and it goes with the job's record. Its sync was one disk wait on
 * every run's path for nothing. A ticket's environment (env-files.ts, writeEnvFile) waits for an
 * admission that may come after a reboot, and stays synced.
 */
export function writeJobEnvFile(paths: StatePaths, jobId: string, env: Record<string, string>): void {
  const file = jobEnvPath(paths, jobId);
  try {
    mkdirSync(paths.jobs, { recursive: true, mode: STATE_DIR_MODE });
    writeNow(file, EnvFileCheck, { version: 1, env }, { mode: STATE_FILE_MODE, durable: false });
  } catch (error) {
    throw new DogsledError(`cannot write ${file}: ${squeezedLine(messageOf(error))}`, { cause: error });
  }
}
