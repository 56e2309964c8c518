// One state file's guard for the stores that share it (the message layer, the sweep, the
// watchdog): anything but a regular file where a state file belongs is refused before it is
// opened, and a file-system failure becomes one line naming the file relative to the state dir.

import { relative } from 'node:path';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import type { StateIO } from '../io.js';
import { statOrAbsent } from './regular-file.js';

/** A state file as a message names it: relative to the state dir, or whole when outside it. */
export function relativeName(io: Pick<StateIO, 'paths'>, file: string): string {
  return relative(io.paths.dir, file) || file;
}

/**
 * Refuses anything but a regular file (or nothing) at `file`, before it is opened. A synchronous
 * lstat (regular-file.ts says why): the service guards several files every tick.
 */
function assertRegular(io: Pick<StateIO, 'paths'>, file: string): void {
  let kind: string;
  try {
    const stats = statOrAbsent(file, { follow: false });
    if (stats === undefined || stats.isFile()) return;
    kind = stats.isDirectory()
      ? 'a directory'
      : stats.isFIFO()
        ? 'a FIFO'
        : stats.isSymbolicLink()
          ? 'a symlink'
          : 'not a regular file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw new DogsledError(`cannot read ${relativeName(io, file)}: ${code ?? messageOf(error)}`, {
      cause: error,
    });
  }
  throw new DogsledError(`${relativeName(io, file)} is ${kind}, not a regular file`);
}

/**
 * Runs `action` on a state file: anything but a regular file there is refused first, and
 * file-system failures become one line naming the file (DogsledErrors pass through).
 */
export async function guarded<T>(
  io: Pick<StateIO, 'paths'>,
  file: string,
  action: () => Promise<T>,
): Promise<T> {
  assertRegular(io, file);
  try {
    return await action();
  } catch (error) {
    if (error instanceof DogsledError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new DogsledError(`${relativeName(io, file)}: ${code ?? messageOf(error)}`, { cause: error });
  }
}
