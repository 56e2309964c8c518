// Every state file is read whole, so a file past any size dogsled writes is refused before it is
// read. The largest record dogsled keeps is a terminal's inbox (32 MiB at most, inbox-space.ts);
// a file of gigabytes in a state file's place would otherwise take the reader's memory, or fail with
// V8's string-length error naming no file. Synchronous and free of node:fs/promises, so the lean
// readers of the hot paths can use it.

import { fstatSync, readSync } from 'node:fs';

/** Twice the largest record dogsled writes: anything larger is not a file dogsled wrote. */
export const STATE_FILE_MAX_BYTES = 64 * 1024 * 1024;

/** A file larger than its reader's cap. */
export class FileTooLarge extends Error {
  readonly size: number;
  readonly max: number;

  constructor(size: number, max: number) {
    super(`larger than ${mib(max)} (${mib(size)} or more)`);
    this.size = size;
    this.max = max;
  }
}

/** The whole text of the open file `fd`, refused past `max` bytes (however much it grows meanwhile). */
export function readFdBounded(fd: number, max: number = STATE_FILE_MAX_BYTES): string {
  return readFdBytes(fd, max).toString('utf8');
}

/** The whole content of the open file `fd` as bytes, refused past `max` (however much it grows). */
export function readFdBytes(fd: number, max: number = STATE_FILE_MAX_BYTES): Buffer {
  return readBytes(fd, fstatSync(fd).size, max);
}

/**
 * readFdBounded of a regular file whose size its caller has just taken from the open handle (a
 * glance's fstat): no second stat, and no read past what it holds when it holds what the stat said,
 * so one read where the file is unchanged (a glance of a hundred job records makes two hundred
 * system calls fewer).
 */
export function readFileFdBounded(fd: number, size: number, max: number = STATE_FILE_MAX_BYTES): string {
  return readFileFdBytes(fd, size, max).toString('utf8');
}

/** readFileFdBounded's bytes: the file's content, read once where it holds what its fstat said. */
export function readFileFdBytes(fd: number, size: number, max: number = STATE_FILE_MAX_BYTES): Buffer {
  return readBytes(fd, size, max, true);
}

function readBytes(fd: number, size: number, max: number, stopAtSize = false): Buffer {
  if (size > max) throw new FileTooLarge(size, max);
  // One byte more than the file claims: a read that fills it means the file grew since the stat.
  let buffer = Buffer.allocUnsafe(size + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > max) throw new FileTooLarge(length, max);
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, max + 1));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const wanted = buffer.length - length;
    const read = readSync(fd, buffer, length, wanted, null);
    if (read === 0) break;
    length += read;
    // A regular file that gave all the stat said and then ran short of the spare byte is at its end.
    if (stopAtSize && length === size && read < wanted) break;
  }
  if (length > max) throw new FileTooLarge(length, max);
  return buffer.subarray(0, length);
}

function mib(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}
