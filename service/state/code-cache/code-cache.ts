// The hot bundles' V8 code caches (code-cache/NAME-HASH.bin in the state dir): the file and its format,
// read before a hot command compiles its bundle (written by code-cache-write.ts). A cache is an
// optimisation and never trusted: anything but a regular file of this user, with this exact key and
// two identical copies of its data, is ignored (the caller compiles from source and writes a fresh one).

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

/** `code-cache` in the state dir: one file per hot command and build. */
export function codeCacheDir(stateDir: string): string {
  return join(stateDir, 'code-cache');
}

/**
 * `NAME-<first 16 hex of the bundle's hash>.bin`: two builds on one host (a service left on the
 * previous one, a second checkout) keep a cache each instead of replacing each other's on every run.
 */
export function codeCacheFile(stateDir: string, name: string, bundleHash: string): string {
  return join(codeCacheDir(stateDir), `${name}-${bundleHash.slice(0, 16)}.bin`);
}

/** Another build's cache of the same command (or this name before caches named their build). */
export function isSiblingCache(file: string, name: string): boolean {
  return file === `${name}.bin` || new RegExp(`^${name}-[0-9a-f]{16}\\.bin$`).test(file);
}

/** A cache is some hundreds of KB; anything far larger is not one of ours. */
const MAX_BYTES = 32 * 1024 * 1024;

/** Room for the header (the key: this Node, the bundle's hash, the V8 flags; the length) in the first read. */
const HEADER_ROOM = 4096;

/** Bytes of the second copy read and compared at a time, into the same room after the first. */
const CHUNK = 16 * 1024;

/**
 * What V8 may be given for `key`, or why nothing: `absent`, `not a regular file`, `foreign key`...
 * Synchronous: it runs before anything else a hot command does, and a FIFO cannot block it
 * (O_NONBLOCK, then refused on the open handle). `bufferOf` gives the memory the file is read into
 * (at least the size asked), which the data returned is part of: the hot loader hands the same
 * buffer to every read of a start-up. The header and the first copy come in one read; the second
 * copy a chunk at a time into the room after it, each compared with the first as it arrives, so a
 * cache costs the pages of one copy and a chunk, not two copies (each fresh page a read lands in is
 * a page fault, and a fault costs several system calls' time).
 */
export function readCodeCache(
  file: string,
  key: string,
  bufferOf: (size: number) => Buffer = (size) => Buffer.allocUnsafe(size),
): { data: Buffer } | { refused: string } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP: a symlink (O_NOFOLLOW), which the next write replaces with a file of our own.
    return { refused: code === 'ENOENT' ? 'absent' : code === 'ELOOP' ? 'not a regular file' : 'unreadable' };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { refused: 'not a regular file' };
    if (process.getuid && info.uid !== process.getuid()) return { refused: "another user's file" };
    if (info.size > MAX_BYTES) return { refused: 'too large' };
    return readCopies(fd, info.size, key, bufferOf);
  } catch {
    return { refused: 'unreadable' };
  } finally {
    closeSync(fd);
  }
}

function readCopies(
  fd: number,
  size: number,
  key: string,
  bufferOf: (size: number) => Buffer,
): { data: Buffer } | { refused: string } {
  const first = Math.min(size, Math.floor(size / 2) + HEADER_ROOM);
  const buffer = bufferOf(first < size ? first + CHUNK : size);
  const got = readAt(fd, buffer, 0, first, 0);
  const header = parseHeader(buffer.subarray(0, got), key, got === size);
  if (header !== undefined && 'refused' in header) return header;
  if (header === undefined || header.start + header.length > got) {
    // A header longer than its room (a long NODE_OPTIONS in the key), or a file that shrank: whole.
    const whole = bufferOf(size);
    return parseCodeCache(whole.subarray(0, readAt(fd, whole, 0, size, 0)), key);
  }
  const { start, length } = header;
  if (size !== start + 2 * length) return { refused: 'truncated' };
  // The second copy's bytes the first read brought, then the rest a chunk at a time.
  const second = start + length;
  if (buffer.compare(buffer, start, start + got - second, second, got) !== 0) return { refused: 'damaged' };
  for (let at = got; at < size; ) {
    const n = readAt(fd, buffer, first, Math.min(CHUNK, size - at), at);
    if (n === 0) return { refused: 'truncated' };
    const from = start + at - second;
    if (buffer.compare(buffer, from, from + n, first, first + n) !== 0) return { refused: 'damaged' };
    at += n;
  }
  return { data: buffer.subarray(start, second) };
}

/** Reads `length` bytes at `position` into `buffer` at `offset`, or fewer at the end of the file. */
function readAt(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buffer, offset + got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/**
 * `KEY\nLENGTH\n` (the length's line padded with spaces so the data starts at a multiple of 8: V8
 * copies data that is not aligned before reading it), then the data twice. V8 checks only its own
 * version, flags and the source's length, and a release build does not checksum a cache: damaged
 * data aborts the process (SIGTRAP) while deserialising. So the key names the exact source, and the
 * data is handed over only when both copies agree byte for byte (cheaper than any hash at start-up).
 */
export function parseCodeCache(buffer: Buffer, key: string): { data: Buffer } | { refused: string } {
  const header = parseHeader(buffer, key, true);
  if (header === undefined || 'refused' in header) return header ?? { refused: 'foreign key' };
  const { start, length } = header;
  if (buffer.length !== start + 2 * length) return { refused: 'truncated' };
  const data = buffer.subarray(start, start + length);
  if (!data.equals(buffer.subarray(start + length))) return { refused: 'damaged' };
  return { data };
}

/**
 * Where the data starts and its length, or why the file is refused; undefined when `head`, the
 * file's first bytes (`whole`: all of them), ends before the header does.
 */
function parseHeader(
  head: Buffer,
  key: string,
  whole: boolean,
): { start: number; length: number } | { refused: string } | undefined {
  const keyEnd = head.indexOf(10);
  if (keyEnd === -1) return whole ? { refused: 'foreign key' } : undefined;
  if (head.toString('utf8', 0, keyEnd) !== key) return { refused: 'foreign key' };
  const lengthEnd = head.indexOf(10, keyEnd + 1);
  if (lengthEnd === -1 && !whole) return undefined;
  const length = lengthEnd === -1 ? Number.NaN : Number(head.toString('latin1', keyEnd + 1, lengthEnd));
  if (!Number.isSafeInteger(length) || length <= 0) return { refused: 'truncated' };
  return { start: lengthEnd + 1, length };
}

export function formatCodeCache(key: string, data: Buffer): Buffer {
  const header = `${key}\n${data.length}`;
  const pad = (8 - ((Buffer.byteLength(header) + 1) % 8)) % 8;
  return Buffer.concat([Buffer.from(`${header}${' '.repeat(pad)}\n`), data, data]);
}
