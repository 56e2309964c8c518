// State files are read, and logs appended to, only when they are regular files. A directory, FIFO,
// socket or device in their place is refused with one line naming it: opened with O_NONBLOCK so a
// FIFO can never block, and checked on the open handle (and, for reads, before opening).
// The path's own check and whole-file reads are synchronous: a stat, an O_NONBLOCK open and a read
// of a local state file take microseconds, where each async call was a thread-pool round trip of
// 80-100 µs of CPU on a small virtual machine (a missing file's rejection most of all), and the
// service reads a dozen state files every tick. A FIFO still cannot block (O_NONBLOCK, refused on
// the handle), and the reads were synchronous already (bounded-read.ts).

import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DogsledError } from '../../core/common/errors.js';
import { squeezedLine } from '../../core/text/clean.js';
import { readFdBounded } from './bounded-read.js';
import { fsFailure } from './fs-errors.js';

/** The open file, or undefined when it does not exist. */
export async function openRegular(path: string): Promise<FileHandle | undefined> {
  try {
    const before = statOrAbsent(path);
    if (before === undefined) return undefined;
    if (!before.isFile()) throw notRegular(path, before);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fsFailure('read', path, error);
  }
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fsFailure('read', path, error);
  }
  try {
    const after = await handle.stat();
    if (!after.isFile()) throw notRegular(path, after);
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw fsFailure('read', path, error);
  }
}

/**
 * openRegular, synchronously: the file's descriptor, or undefined when it does not exist. For a
 * reader that then reads it synchronously too (job-logs.ts's follow), and so loads no
 * node:fs/promises on a `run --wait`. The same refusals, worded the same.
 */
export function openRegularNow(path: string): number | undefined {
  try {
    const before = statOrAbsent(path);
    if (before === undefined) return undefined;
    if (!before.isFile()) throw notRegular(path, before);
  } catch (error) {
    throw fsFailure('read', path, error);
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fsFailure('read', path, error);
  }
  try {
    const after = fstatSync(fd);
    if (!after.isFile()) throw notRegular(path, after);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw fsFailure('read', path, error);
  }
}

/**
 * A regular file opened for appending, created with `mode` when missing. O_NONBLOCK: a FIFO in its
 * place with no reader fails (ENXIO) instead of blocking, and one with a reader is refused.
 */
export async function openAppendRegular(path: string, mode: number): Promise<FileHandle> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK,
      mode,
    );
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFile(path, kindOf(stats), 'write');
    return handle;
  } catch (error) {
    await handle?.close().catch(() => undefined);
    throw fsFailure('write', path, error);
  }
}

/**
 * openAppendRegular, synchronously: the descriptor, the same refusals worded the same. For the
 * service's one append a tick (samples.jsonl), which it writes without an fsync: a small write
 * into the page cache, where the async open, fstat, write and close were four thread-pool trips.
 */
export function openAppendRegularNow(path: string, mode: number): number {
  let fd: number | undefined;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK,
      mode,
    );
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFile(path, kindOf(stats), 'write');
    return fd;
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    throw fsFailure('write', path, error);
  }
}

/**
 * The whole text of a regular file, or undefined when it does not exist; past the state-file cap
 * (bounded-read.ts) it is refused with one line.
 */
export async function readRegular(path: string): Promise<string | undefined> {
  return readRegularNow(path);
}

/** readRegular, synchronously. */
export function readRegularNow(path: string): string | undefined {
  const fd = openRegularNow(path);
  if (fd === undefined) return undefined;
  try {
    return readFdBounded(fd);
  } catch (error) {
    throw fsFailure('read', path, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * The path's stats, or undefined when nothing is there, told without an exception (a thrown ENOENT
 * costs more than the stat). `throwIfNoEntry: false` answers undefined for ENOTDIR too (a file where
 * a directory of the path belongs): that one is not a missing file, so it gets the stat's own error,
 * which the callers word as before. A file whose directory is there is missing, not misplaced.
 * `follow: false`: the path itself, a symlink included (lstat).
 */
export function statOrAbsent(path: string, options: { follow?: boolean } = {}): Stats | undefined {
  const statOf = options.follow === false ? lstatSync : statSync;
  const stats = statOf(path, { throwIfNoEntry: false });
  if (stats !== undefined) return stats;
  if (statSync(dirname(path), { throwIfNoEntry: false })?.isDirectory()) return undefined;
  try {
    return statOf(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A directory, FIFO, socket or device where a state file belongs. */
export class NotRegularFile extends DogsledError {
  /** `a directory`, `a FIFO`, ... */
  readonly kind: string;

  constructor(path: string, kind: string, action: 'read' | 'write' = 'read') {
    super(`cannot ${action} ${squeezedLine(path, 400)}: it is ${kind}, not a regular file`);
    this.kind = kind;
  }
}

function notRegular(path: string, stats: Stats): NotRegularFile {
  return new NotRegularFile(path, kindOf(stats));
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a file';
}
