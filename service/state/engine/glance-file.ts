// A state file as a lean reader (a glance: the hot paths' readers that check by hand and load no
// zod) reads it: once, synchronously, and only a regular file (opened O_NONBLOCK, so a FIFO in its
// place never blocks, then refused on the open handle; O_NOFOLLOW, so a symlink is left to the full
// reader's own rule). A glance never quarantines or words a problem: whatever it doubts goes to the
// full reader, which does both.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { readFileFdBounded } from './bounded-read.js';
import type { RecordCheck } from './record-check.js';

/**
 * The file's text; null when there is no file; undefined when in doubt (not a file, unreadable,
 * past the state-file cap).
 */
/** The file opened for a glance: its descriptor; null when there is no file; undefined in doubt. */
function openGlance(path: string): number | null | undefined {
  try {
    return openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

export function glanceText(path: string): string | null | undefined {
  const fd = openGlance(path);
  if (fd === null || fd === undefined) return fd;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    return readFileFdBounded(fd, stat.size);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A listed file read whole in one read when it fits: a job record is under a kibibyte. */
const LISTED_BYTES = 16 * 1024;
let listedBuffer: Buffer | undefined;

/**
 * glanceText of a directory entry its listing gave as a regular file (a Dirent's type, which
 * readdir has for free): no fstat (a Stats object per file was a third of a hundred job records'
 * read) and one read into a buffer kept for it. Whatever took the entry's place since the listing
 * is still in doubt: a symlink fails the open (O_NOFOLLOW), a directory fails the read, a FIFO
 * (opened O_NONBLOCK) fails it or reads empty, which is no JSON; a text that fills the buffer (a
 * large file, a device) is read again by glanceText, which checks the handle and the size cap.
 */
export function glanceListedText(path: string): string | null | undefined {
  const fd = openGlance(path);
  if (fd === null || fd === undefined) return fd;
  listedBuffer ??= Buffer.allocUnsafe(LISTED_BYTES);
  let length: number;
  try {
    length = readSync(fd, listedBuffer, 0, LISTED_BYTES, null);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  return length < LISTED_BYTES ? listedBuffer.toString('utf8', 0, length) : glanceText(path);
}

export type Glanced = { found: false } | { found: true; value: unknown };

/**
 * The file's JSON; `{ found: false }` when there is no file; undefined when in doubt. `listed`: an
 * entry its directory's listing gave as a regular file (glanceListedText).
 */
export function glanceJson(path: string, listed = false): Glanced | undefined {
  const text = listed ? glanceListedText(path) : glanceText(path);
  if (text === undefined) return undefined;
  if (text === null) return { found: false };
  try {
    return { found: true, value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * The file's record as `check` (a hand check, state/checks) judges it: `{ found: false }` when there
 * is no file; undefined when in doubt, a record the check refuses included.
 */
export function glanceRecord<T>(
  path: string,
  check: RecordCheck<T>,
): { found: false } | { found: true; value: T } | undefined {
  const glanced = glanceJson(path);
  if (glanced === undefined || !glanced.found) return glanced;
  const checked = check.safeParse(glanced.value);
  return checked.success ? { found: true, value: checked.data } : undefined;
}
