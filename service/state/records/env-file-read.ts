// A caller's environment file (env-files.ts) read and removed, in a module of its own: a job's
// supervisor does both between its start claim and the spawn, and env-files.ts, which also writes
// a ticket's through the store and EnvFileSchema, put zod and node:fs/promises on its start-up. The
// file is judged by its hand check (EnvFileCheck, held to EnvFileSchema by hand-checks.test.ts),
// which refuses what its one writer never writes: a `__proto__` key, which the schema drops without
// a word, is refused here like any file that is not what was written (running the job with another
// environment than its caller's would be a silent change).

import { closeSync, constants, fstatSync, openSync, unlinkSync } from 'node:fs';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { squeezedLine } from '../../core/text/clean.js';
import { EnvFileCheck } from '../checks/queue-items-check.js';
import { readFdBounded } from '../engine/bounded-read.js';

export type Environment = Record<string, string>;

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
  const parsed = EnvFileCheck.safeParse(json);
  if (!parsed.success) throw new DogsledError(`${file} is not an environment file`);
  return parsed.data.env;
}

/**
 * Removes `file`; one that is already gone is fine. unlink, not rm: the file is never a directory
 * (one in its place is refused, EISDIR, as rm refuses it), and rm loads its recursive remover.
 */
export function removeEnvFileNow(file: string): void {
  try {
    unlinkSync(file);
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
