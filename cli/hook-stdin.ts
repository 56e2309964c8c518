// The JSON a harness sends a hook on stdin, read from fd 0 with plain reads. process.stdin would be
// a stream (on a pipe or socket a net.Socket) whose first use loads Node's streams and node:net: a
// fifth of a bare Node start, on every prompt and stop of every agent. A pipe or socket is read in
// the event loop through the pipe handle process.stdin is built on (process/pipe-handle.ts), a file
// with synchronous reads: node:fs's asynchronous read would start libuv's pool of four threads for
// one small read, which on a busy machine costs a hook more wall time than its reads. Only where the
// handle is not there as expected does it read through node:fs's pool. Reading stops at the end of
// input, once the text holds a whole JSON object (a harness that never closes stdin has said what it
// had), or past STDIN_MAX_BYTES. No read is left pending when it returns, so nothing holds the
// process open; a harness that neither finishes its object nor closes stdin leaves the read waiting
// until the hook's budget ends the process (cli/hook-flags.ts).

import { fstatSync, read, readSync } from 'node:fs';
import { hookInput, readFdChunks } from '../service/actions/hook.js';

/** The harness's JSON is small; anything past this is not read (nothing here needs it whole). */
const STDIN_MAX_BYTES = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
/** A non-blocking stdin with nothing in it yet is asked again after this long. */
const RETRY_MS = 2;

/** What stdin held; '' for a terminal (nobody sends anything), no stdin at all, or a device. */
export function readHookStdin(fd = 0): Promise<string> {
  let kind: ReturnType<typeof fstatSync>;
  try {
    kind = fstatSync(fd);
  } catch {
    return Promise.resolve('');
  }
  const kept: Buffer[] = [];
  let seen = 0;
  const text = () => Buffer.concat(kept).toString('utf8');
  /** Keeps `chunk`; true once there is enough: a whole object, or past the bound. */
  const take = (chunk: Buffer): boolean => {
    seen += chunk.length;
    if (seen > STDIN_MAX_BYTES) return true;
    kept.push(chunk);
    return hookInput(text()) !== undefined;
  };
  if (kind.isFile()) return Promise.resolve(readFile(fd, take, text));
  // A terminal, /dev/null or another device: nothing a harness wrote.
  if (!kind.isFIFO() && !kind.isSocket()) return Promise.resolve('');
  const piped = readFdChunks(fd, take);
  if (piped !== undefined) return piped.then(text);
  return readThroughPool(fd, take, text);
}

/** A file never blocks a read: read at once, to its end or to enough. */
function readFile(fd: number, take: (chunk: Buffer) => boolean, text: () => string): string {
  try {
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
      const bytes = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (bytes === 0 || take(buffer.subarray(0, bytes))) break;
    }
  } catch {
    // What came before the failure is all.
  }
  return text();
}

/** node:fs's asynchronous reads, where the pipe handle is not there as expected. */
function readThroughPool(fd: number, take: (chunk: Buffer) => boolean, text: () => string): Promise<string> {
  return new Promise((resolve) => {
    const finish = () => resolve(text());
    const next = () => {
      read(fd, Buffer.allocUnsafe(CHUNK_BYTES), 0, CHUNK_BYTES, null, (error, bytes, buffer) => {
        if (error) {
          // A descriptor its parent left non-blocking: wait for the harness to write.
          if (error.code === 'EAGAIN') return void setTimeout(next, RETRY_MS);
          return finish();
        }
        if (bytes === 0 || take(buffer.subarray(0, bytes))) return finish();
        next();
      });
    };
    next();
  });
}
