// The JSON a harness sends a hook on stdin, read from fd 0 with plain reads. process.stdin would be
// a stream (on a pipe or socket a net.Socket) whose first use loads Node's stream modules and
// node:net: a fifth of a bare Node start, on every prompt and stop of every agent. Reading stops at
// the end of input, once the text holds a whole JSON object (a harness that never closes stdin has
// said what it had), or past STDIN_MAX_BYTES. No read is left pending when it returns, so nothing
// holds the process open; a harness that neither finishes its object nor closes stdin leaves the
// read waiting until the hook's budget ends the process (cli/hook-flags.ts).

import { fstatSync, read } from 'node:fs';
import { hookInput } from '../service/actions/hook.js';

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
  // A terminal, /dev/null or another device: nothing a harness wrote.
  if (!kind.isFIFO() && !kind.isSocket() && !kind.isFile()) return Promise.resolve('');
  return new Promise((resolve) => {
    const kept: Buffer[] = [];
    let seen = 0;
    const finish = () => resolve(Buffer.concat(kept).toString('utf8'));
    const next = () => {
      read(fd, Buffer.allocUnsafe(CHUNK_BYTES), 0, CHUNK_BYTES, null, (error, bytes, buffer) => {
        if (error) {
          // A descriptor its parent left non-blocking: wait for the harness to write.
          if (error.code === 'EAGAIN') return void setTimeout(next, RETRY_MS);
          return finish();
        }
        if (bytes === 0) return finish();
        seen += bytes;
        if (seen > STDIN_MAX_BYTES) return finish();
        kept.push(buffer.subarray(0, bytes));
        if (hookInput(Buffer.concat(kept).toString('utf8')) !== undefined) return finish();
        next();
      });
    };
    next();
  });
}
