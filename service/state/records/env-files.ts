// The caller's environment, carried to the job beside its record instead of in it: jobs/ID.env for
// a launched job, tickets/ID.env for a queued ticket until its admission. The environment can hold
// secrets, so it never goes into a record, queue.json, host.json, `ps --json` or a pane's command
// line; these files are 0600 in the 0700 state dir and live only until the job is claimed (the exec
// supervisor reads and removes jobs/ID.env) or the ticket is settled.

import { closeSync, constants, fstatSync, openSync, rmSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { squeezedLine } from '../../core/text/clean.js';
import { readFdBounded } from '../engine/bounded-read.js';
import { writeState } from '../engine/store.js';
import { STATE_DIR_MODE, type StatePaths } from '../paths.js';
import { EnvFileSchema } from '../schemas/queue-items-schemas.js';
import { jobEnvPath } from './job-records.js';

export type Environment = Record<string, string>;

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

/**
 * The environment in `file`; undefined when there is none (a job launched without one, or by an
 * older dogsled). A file that exists but cannot be read or parsed is an error: running the job with
 * some other environment would be a silent change of what the caller asked for. Read with
 * synchronous calls (a small 0600 file): a job's supervisor reads its jobs/ID.env between its start
 * claim and the spawn while the job's caller waits, and each step is then a call, not a round trip
 * through the thread pool.
 */
export function readEnvFileNow(file: string): Environment | undefined {
  let fd: number;
  try {
    // Non-blocking, so a FIFO put in its place cannot hang the reader; only a regular file is read.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (absent(error)) return undefined;
    throw new DogsledError(`cannot read ${file}: ${squeezedLine(messageOf(error))}`, { cause: error });
  }
  let text: string;
  try {
    if (!fstatSync(fd).isFile()) throw new DogsledError(`${file} is not a regular file`);
    text = readFdBounded(fd);
  } catch (error) {
    if (error instanceof DogsledError) throw error;
    throw new DogsledError(`cannot read ${file}: ${squeezedLine(messageOf(error))}`, { cause: error });
  } finally {
    closeSync(fd);
  }
  return environmentIn(file, text);
}

/** readEnvFileNow for an async caller. */
export async function readEnvFile(file: string): Promise<Environment | undefined> {
  return readEnvFileNow(file);
}

function environmentIn(file: string, text: string): Environment {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DogsledError(`${file} is not JSON`);
  }
  const parsed = EnvFileSchema.safeParse(json);
  if (!parsed.success) throw new DogsledError(`${file} is not an environment file`);
  return parsed.data.env;
}

/** Removes `file`; one that is already gone is fine. */
export function removeEnvFileNow(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch (error) {
    if (absent(error)) return;
    throw new DogsledError(`cannot remove ${file}: ${squeezedLine(messageOf(error))}`, { cause: error });
  }
}

/** removeEnvFileNow for an async caller. */
export async function removeEnvFile(file: string): Promise<void> {
  removeEnvFileNow(file);
}

/** No such file: missing, or a parent that is not a directory (then nothing can be under it). */
function absent(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The ticket ids that have an environment file (tickets/ID.env). */
export async function ticketEnvIds(paths: StatePaths): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(paths.tickets);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => name.endsWith(ENV_SUFFIX)).map((name) => name.slice(0, -ENV_SUFFIX.length));
}
