// How the probe reads /proc, /sys and cgroup files. Linux measurement is pure parsing over these
// reads, so tests point the same code at an inline fixture tree with `rootedReader`.
// A missing file is an answer (undefined: no such limit, no such controller); any other read
// error is a measurement failure.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DogsledError, messageOf } from '../core/common/errors.js';

/** Text of an absolute path, or undefined when it does not exist. */
export type ReadText = (path: string) => Promise<string | undefined>;

/** The machine's own files. */
export const readText: ReadText = (path) => readAt(path, path);

/** Reads absolute paths below `root` instead of `/`, naming the unrooted path in errors. */
export function rootedReader(root: string): ReadText {
  return (path) => readAt(join(root, path), path);
}

/**
 * Synchronous: /proc, /sys and cgroup files are the kernel's, answered from memory, never a disk's.
 * The async read was five thread-pool round trips (open, stat, read, read, close) for each of the
 * ten or so files every tick reads, the larger part of the measurement's CPU.
 */
async function readAt(fsPath: string, shownPath: string): Promise<string | undefined> {
  try {
    return readFileSync(fsPath, 'utf8');
  } catch (error) {
    // ENOTDIR: a path component is a plain file, which for cgroup trees means "not there" too.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new DogsledError(`measurement failed: ${shownPath}: ${messageOf(error)}`, { cause: error });
  }
}

/** The error every probe module throws for a reading it cannot trust. */
export function measurementFailed(what: string, why: string): DogsledError {
  return new DogsledError(`measurement failed: ${what}: ${why}`);
}
