// The hot bundles' V8 code caches (code-cache/NAME-HASH.bin in the state dir): the file and its format,
// read before a hot command compiles its bundle (written by code-cache-write.ts). A cache is an
// optimisation and never trusted: anything but a regular file of this user, with this exact key and
// two identical copies of its data, is ignored (the caller compiles from source and writes a fresh one).

import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { STATE_DIR_MODE } from '../paths.js';

/** `code-cache` in the state dir: one file per hot command and build. */
export function codeCacheDir(stateDir: string): string {
  return join(stateDir, 'code-cache');
}

/**
 * Node's own compile cache (module.enableCompileCache, Node 22.1 and later), for what the hot
 * bundles' caches cannot hold: the full commands' ES-module chunks (cli/compile-cache.ts) and
 * blessed's files under the sidebar (sidebar/blessed-cache.ts). Node keeps a dir per release and
 * user in it, an entry per module file.
 */
export function nodeCompileCacheDir(stateDir: string): string {
  return join(codeCacheDir(stateDir), 'node');
}

interface NodeModule {
  enableCompileCache?: (dir: string) => { status: number };
  constants?: { compileCacheStatus?: Record<string, number> };
}

/**
 * Turns Node's compile cache on for the modules loaded from here on, in nodeCompileCacheDir, made
 * 0700 (Node would make missing dirs with the umask's mode), only in a state dir that exists. True
 * when Node's cache is on, here or where the user put it (NODE_COMPILE_CACHE, which Node turned on
 * as it started); false on a Node without one (20), with NODE_DISABLE_COMPILE_CACHE, or when it
 * could not be. Never throws.
 */
export function enableNodeCompileCache(stateDir: string, env: NodeJS.ProcessEnv): boolean {
  const nodeModule = process.getBuiltinModule('node:module') as NodeModule;
  if (typeof nodeModule.enableCompileCache !== 'function') return false;
  if (env.NODE_DISABLE_COMPILE_CACHE !== undefined) return false;
  if (env.NODE_COMPILE_CACHE !== undefined) return true;
  try {
    if (!statSync(stateDir).isDirectory()) return false;
    const dir = nodeCompileCacheDir(stateDir);
    mkdirSync(dir, { mode: STATE_DIR_MODE, recursive: true });
    const status = nodeModule.constants?.compileCacheStatus ?? {};
    const { status: got } = nodeModule.enableCompileCache(dir);
    return got === status.ENABLED || got === status.ALREADY_ENABLED;
  } catch {
    // A state dir that cannot hold a cache: modules compile from source.
    return false;
  }
}

/**
 * `NAME-<first 16 hex of the bundle's hash>.bin`: two builds on one host (a service left on the
 * previous one, a second checkout) keep a cache each instead of replacing each other's on every run.
 */
export function codeCacheFile(stateDir: string, name: string, bundleHash: string): string {
  // join's answer (the name is one plain segment), without normalizing the whole path a second time.
  return `${codeCacheDir(stateDir)}${sep}${name}-${bundleHash.slice(0, 16)}.bin`;
}

/** Another build's cache of the same command (or this name before caches named their build). */
export function isSiblingCache(file: string, name: string): boolean {
  return file === `${name}.bin` || new RegExp(`^${name}-[0-9a-f]{16}\\.bin$`).test(file);
}

/** A cache is some hundreds of KB; anything far larger is not one of ours. */
const MAX_BYTES = 32 * 1024 * 1024;

/**
 * The length's line: up to 16 digits, spaces to align the data, its newline. HEADER_MORE, past the
 * key: the key's newline and that line.
 */
const LENGTH_LINE = 16 + 7 + 1;
const HEADER_MORE = 1 + LENGTH_LINE;

/** Bytes of the second copy read and compared at a time, into the room after the first. */
const CHUNK = 16 * 1024;

/**
 * What V8 may be given for `key`, or why nothing: `absent`, `not a regular file`, `foreign key`...
 * Synchronous: it runs before anything else a hot command does, and a FIFO cannot block it
 * (O_NONBLOCK, then refused on the open handle). `bufferOf` gives the memory the file is read into
 * (at least the size asked), which the data returned is part of: the hot loader hands the same
 * buffer to every read of a start-up. The header and the first copy come in one read; the second
 * copy a chunk at a time into the room after it, each chunk compared with the first copy as it
 * comes, so a cache costs the pages of one copy and a chunk, not two copies (each fresh page a
 * read lands in is a page fault, which costs several system calls' time).
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
    const size = info.size;
    if (size > MAX_BYTES) return { refused: 'too large' };
    // The file is its header (at most HEADER_MORE bytes past the key, whose UTF-8 is at most three
    // bytes a UTF-16 unit) and two copies: the header and the first copy end by half the file and
    // half the header. What ends later is not ours (parseHeader refuses it).
    const first = Math.min(size, Math.ceil((size + key.length * 3 + HEADER_MORE) / 2));
    const buffer = bufferOf(first + CHUNK);
    const got = readAt(fd, buffer, 0, first, 0);
    const header = parseHeader(buffer.subarray(0, got), key, size);
    if ('refused' in header) return header;
    const { start, length } = header;
    const second = start + length;
    if (got < second) return { refused: 'truncated' };
    if (!same(buffer, start, second, got - second)) return { refused: 'damaged' };
    for (let at = got; at < size; ) {
      const n = readAt(fd, buffer, first, Math.min(CHUNK, size - at), at);
      if (n === 0) return { refused: 'truncated' };
      if (!same(buffer, start + at - second, first, n)) return { refused: 'damaged' };
      at += n;
    }
    return { data: buffer.subarray(start, second) };
  } catch {
    return { refused: 'unreadable' };
  } finally {
    closeSync(fd);
  }
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

/** Whether `n` bytes of `buffer` at `a` and at `b` are the same. */
function same(buffer: Buffer, a: number, b: number, n: number): boolean {
  return buffer.subarray(a, a + n).equals(buffer.subarray(b, b + n));
}

/**
 * `KEY\nLENGTH\n` (the length's line padded with spaces so the data starts at a multiple of 8: V8
 * copies data that is not aligned before reading it), then the data twice. V8 checks only its own
 * version, flags and the source's length, and a release build does not checksum a cache: damaged
 * data aborts the process (SIGTRAP) while deserialising. So the key names the exact source, and the
 * data is handed over only when both copies agree byte for byte (cheaper than any hash at start-up).
 * The whole file's verdict, as readCodeCache reaches it a chunk at a time.
 */
export function parseCodeCache(buffer: Buffer, key: string): { data: Buffer } | { refused: string } {
  const header = parseHeader(buffer, key, buffer.length);
  if ('refused' in header) return header;
  const { start, length } = header;
  return same(buffer, start, start + length, length)
    ? { data: buffer.subarray(start, start + length) }
    : { refused: 'damaged' };
}

/**
 * Where the data starts and its length, from `head`, the first bytes of a file of `size` bytes
 * (all of the header and the first copy when the key is `key`), or why the file is refused.
 */
function parseHeader(
  head: Buffer,
  key: string,
  size: number,
): { start: number; length: number } | { refused: string } {
  const keyEnd = head.indexOf(10);
  if (keyEnd === -1 || head.toString('utf8', 0, keyEnd) !== key) return { refused: 'foreign key' };
  const lengthEnd = head.indexOf(10, keyEnd + 1);
  const length =
    lengthEnd === -1 || lengthEnd - keyEnd > LENGTH_LINE
      ? Number.NaN
      : Number(head.toString('latin1', keyEnd + 1, lengthEnd));
  if (!Number.isSafeInteger(length) || length <= 0 || size !== lengthEnd + 1 + 2 * length) {
    return { refused: 'truncated' };
  }
  return { start: lengthEnd + 1, length };
}

export function formatCodeCache(key: string, data: Buffer): Buffer {
  const header = `${key}\n${data.length}`;
  const pad = (8 - ((Buffer.byteLength(header) + 1) % 8)) % 8;
  return Buffer.concat([Buffer.from(`${header}${' '.repeat(pad)}\n`), data, data]);
}
