// The caller's environment, carried to the job beside its record instead of in it: jobs/ID.env for
// a launched job, tickets/ID.env for a queued ticket until its admission. The environment can hold
// secrets, so it never goes into a record, queue.json, host.json, `ps --json` or a pane's command
// line; these files are 0600 in the 0700 state dir and live only until the job is claimed (the exec
// supervisor reads and removes jobs/ID.env) or the ticket is settled. They are read and removed by
// env-file-read.ts.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { squeezedLine } from '../../core/text/clean.js';
import { writeState } from '../engine/store.js';
import { STATE_DIR_MODE, type StatePaths } from '../paths.js';
import { EnvFileSchema } from '../schemas/queue-items-schemas.js';
import type { Environment } from './env-file-read.js';
import { jobEnvPath } from './job-records.js';

export {
  type Environment,
  readEnvFile,
  readEnvFileNow,
  removeEnvFile,
  removeEnvFileNow,
} from './env-file-read.js';

import { dirNames } from '../engine/dir-names.js';

const ENV_SUFFIX = '.env';

export { jobEnvPath };

export function ticketEnvPath(paths: StatePaths, id: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new DogsledError(`ticket id "${squeezedLine(id)}" is not valid`);
  return join(paths.tickets, `${id}${ENV_SUFFIX}`);
}

/** Writes `env` atomically to `file` (0600), creating its 0700 directory when missing. */
export async function writeEnvFile(file: string, env: Environment): Promise<void> {
  try {
    await mkdir(join(file, '..'), { recursive: true, mode: STATE_DIR_MODE });
    await writeState(file, EnvFileSchema, { version: 1, env });
  } catch (error) {
    throw new DogsledError(`cannot write ${file}: ${squeezedLine(messageOf(error))}`, { cause: error });
  }
}

/** The ticket ids that have an environment file (tickets/ID.env). */
export async function ticketEnvIds(paths: StatePaths): Promise<string[]> {
  let names: string[];
  try {
    names = dirNames(paths.tickets) ?? [];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => name.endsWith(ENV_SUFFIX)).map((name) => name.slice(0, -ENV_SUFFIX.length));
}
