// What a command prints, written to fd 1 directly. process.stdout is a stream whose first use loads
// Node's stream modules (and, on a pipe, node:net): milliseconds of every hot command's start-up for
// a line or two of output. Node writes stdout synchronously on Linux for files, pipes and terminals
// alike, so writing the bytes ourselves keeps the same order and the same blocking. A non-blocking
// descriptor that is full (EAGAIN) is waited for.

import { writeSync } from 'node:fs';

const GONE = new Set(['EPIPE', 'EBADF']);
let gone = false;

/**
 * A reader that went away (EPIPE) or a closed stdout (EBADF) takes the rest of the output with it,
 * as from process.stdout, whose write errors no command listens for; any other error throws.
 */
export function writeOut(text: string): void {
  if (gone) return;
  try {
    writeAll(text);
  } catch (error) {
    if (!GONE.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    gone = true;
  }
}

/** Every byte of `text` on stdout when it returns, or it throws: for output that is acknowledged. */
export function writeAll(text: string | Uint8Array): void {
  writeAllTo(1, text);
}

/** Text for stderr beside a command's output (a plan shown while stdout holds --json). */
export function writeErr(text: string): void {
  process.stderr.write(text);
}

/**
 * A line for stderr written to fd 2 directly, as writeOut writes fd 1, and dropped when stderr is
 * gone (a job pane's wrapper whose pane closed): for a command that must outlive its terminal.
 */
export function writeErrQuietly(text: string): void {
  try {
    writeAllTo(2, text);
  } catch {
    // The terminal went away: nothing is left to tell.
  }
}

/** Every byte of `text` on descriptor `fd`, a full non-blocking one waited for. */
function writeAllTo(fd: number, text: string | Uint8Array): void {
  let bytes =
    typeof text === 'string' ? Buffer.from(text) : Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      pause(1);
    }
  }
}

/** Whether stdout is a terminal, asked of process.stdout only when a command needs to know. */
export function stdoutIsTTY(): boolean {
  return Boolean(process.stdout.isTTY);
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
