// The one wrapper every command runs through, on the fast path and in the full command line: it
// returns the command's exit status to main.ts (a command never sets process.exitCode itself), and
// makes every error a user sees name the command it came from (`dogsled: wait: unknown job "x"`).

import { EXIT } from '../service/core/exit-codes.js';
import { DogsledError } from '../service/errors.js';

/** Runs command `name`; an action that returns nothing succeeded. */
export async function runCommand(name: string, action: () => Promise<number | undefined>): Promise<number> {
  try {
    return (await action()) ?? EXIT.ok;
  } catch (error) {
    throw error instanceof DogsledError ? namedError(name, error) : error;
  }
}

/** The error with `name: ` in front, unless its message already starts with the command's name. */
export function namedError(name: string, error: DogsledError): DogsledError {
  if (
    error.message === name ||
    error.message.startsWith(`${name}:`) ||
    error.message.startsWith(`${name} `)
  ) {
    return error;
  }
  const named = new DogsledError(`${name}: ${error.message}`, {
    exitCode: error.exitCode,
    hint: error.hint,
    cause: error.cause,
  });
  named.stack = error.stack;
  return named;
}
