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

/**
 * What V8 may be given for `key`, or why nothing: `absent`, `not a regular file`, `foreign key`...
 * Synchronous: it runs before anything else a hot command does, and a FIFO cannot block it
 * (O_NONBLOCK, then refused on the open handle).
 */
export function readCodeCache(file: string, key: string): { data: Buffer } | { refused: string } {
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
    const buffer = Buffer.allocUnsafe(info.size);
    let got = 0;
    while (got < buffer.length) {
      const n = readSync(fd, buffer, got, buffer.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return parseCodeCache(buffer.subarray(0, got), key);
  } catch {
    return { refused: 'unreadable' };
  } finally {
    closeSync(fd);
  }
}

/**
 * `KEY\nLENGTH\n` then the data twice. V8 checks only its own version, flags and the source's
 * length, and a release build does not checksum a cache: damaged data aborts the process (SIGTRAP)
 * while deserialising. So the key names the exact source, and the data is handed over only when
 * both copies agree byte for byte (cheaper than any hash at start-up).
 */
export function parseCodeCache(buffer: Buffer, key: string): { data: Buffer } | { refused: string } {
  const keyEnd = buffer.indexOf(10);
  if (keyEnd === -1 || buffer.toString('utf8', 0, keyEnd) !== key) return { refused: 'foreign key' };
  const lengthEnd = buffer.indexOf(10, keyEnd + 1);
  const length = lengthEnd === -1 ? Number.NaN : Number(buffer.toString('latin1', keyEnd + 1, lengthEnd));
  if (!Number.isSafeInteger(length) || length <= 0 || buffer.length !== lengthEnd + 1 + 2 * length) {
    return { refused: 'truncated' };
  }
  const data = buffer.subarray(lengthEnd + 1, lengthEnd + 1 + length);
  if (!data.equals(buffer.subarray(lengthEnd + 1 + length))) return { refused: 'damaged' };
  return { data };
}

export function formatCodeCache(key: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${key}\n${data.length}\n`), data, data]);
}
