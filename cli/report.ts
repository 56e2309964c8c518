// The one path by which errors reach the user's terminal: main.ts prints every failure here, and
// commander's own errors arrive as DogsledErrors too. Each line is made plain (terminal escapes and
// control characters removed), because messages quote what the user typed (`--host`, `--cwd`, a job
// id, an unknown option) and a typed escape sequence must not drive the terminal.

import { DogsledError } from '../service/core/common/errors.js';
import { EXIT } from '../service/core/common/exit-codes.js';
import { plainLine } from '../service/core/text/clean.js';

/** Prints `dogsled: <message>` (and its hint) on stderr; returns the exit status. */
export function reportError(error: unknown, write: (text: string) => void): number {
  if (error instanceof DogsledError) {
    write(`dogsled: ${plainLine(error.message)}\n`);
    if (error.hint) write(`  ${plainLine(error.hint)}\n`);
    return error.exitCode;
  }
  // A bug: the stack helps its report, and stays one escape-free line per frame.
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  const lines = text.split('\n').map(plainLine);
  write(`dogsled: internal error: ${lines.join('\n')}\n`);
  return EXIT.internal;
}
