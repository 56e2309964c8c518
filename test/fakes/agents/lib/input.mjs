// Lines typed into the fake agent's terminal, in order. The terminal stays in cooked mode, so the
// pty echoes and edits the line the way a shell prompt would; the fake reads whole lines. At end
// of input the fake does not exit: like a TUI whose input went quiet, it stays where it is.

import { createInterface } from 'node:readline';

export function terminalInput(stream = process.stdin) {
  const lines = [];
  const waiting = [];
  let closed = false;
  const reader = createInterface({ input: stream, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
  reader.on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  reader.on('close', () => {
    closed = true;
  });
  stream.on('error', () => {
    closed = true;
  });
  return {
    get closed() {
      return closed;
    },
    /** The next line; never resolves once input has ended. */
    next() {
      if (lines.length > 0) return Promise.resolve(lines.shift());
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}
