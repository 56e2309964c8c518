// One-line errors for a state file the system refuses: a full disk (ENOSPC, EDQUOT), a read-only
// filesystem (EROFS), permissions (EACCES, EPERM), a directory where a file belongs (EISDIR)...
// These are the user's environment, not bugs: `dogsled: cannot write /path/placements.json: no
// space left on device (ENOSPC)`, exit 2, instead of an internal error with a stack.

import { DogsledError, messageOf } from '../../core/common/errors.js';
import { squeezedLine } from '../../core/text/clean.js';

/** A Node system error: an errno code and the syscall that failed. */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  const e = error as NodeJS.ErrnoException | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.code === 'string' &&
    /^E[A-Z0-9]+$/.test(e.code) &&
    typeof e.syscall === 'string'
  );
}

/** `no space left on device (ENOSPC)`: Node's strerror text without the syscall and paths. */
export function systemErrorText(error: unknown): string {
  if (!isSystemError(error)) return squeezedLine(messageOf(error));
  const text = /^[A-Z0-9]+: ([^,]+)/.exec(error.message)?.[1] ?? error.code;
  return `${squeezedLine(text)} (${error.code})`;
}

/** `cannot <action> <path>: <why>`, keeping the cause for debugging. */
export function fsFailure(action: string, path: string, error: unknown): DogsledError {
  if (error instanceof DogsledError) return error;
  return new DogsledError(`cannot ${action} ${squeezedLine(path, 400)}: ${systemErrorText(error)}`, {
    cause: error,
  });
}
