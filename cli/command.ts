// The one wrapper every command runs through, on the fast path and in the full command line: it
// returns the command's exit status to main.ts (a command never sets process.exitCode itself), and
// makes every error a user sees name the command it came from (`dogsled: wait: unknown job "x"`),
// a system error (ENOSPC, EROFS, EACCES…) included.

import { DogsledError } from '../service/core/common/errors.js';
import { EXIT } from '../service/core/common/exit-codes.js';
import { isSystemError, systemErrorText } from '../service/core/common/system-errors.js';
import { squeezedLine } from '../service/core/text/clean.js';

/** Runs command `name`; an action that returns nothing succeeded. */
export async function runCommand(name: string, action: () => Promise<number | undefined>): Promise<number> {
  try {
    return (await action()) ?? EXIT.ok;
  } catch (error) {
    if (error instanceof DogsledError) throw namedError(name, error);
    if (isSystemError(error)) throw namedError(name, systemFailure(error));
    throw error;
  }
}

/**
 * The system refused a file (a full disk, a read-only filesystem, permissions): the user's
 * environment, not a bug, so one line and exit 2 rather than an internal error with a stack.
 */
function systemFailure(error: NodeJS.ErrnoException & { code: string }): DogsledError {
  const path = typeof error.path === 'string' ? ` ${squeezedLine(error.path, 400)}` : '';
  return new DogsledError(`${error.syscall}${path}: ${systemErrorText(error)}`, { cause: error });
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
