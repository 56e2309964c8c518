// One-line errors for a state file the system refuses: a full disk (ENOSPC, EDQUOT), a read-only
// filesystem (EROFS), permissions (EACCES, EPERM), a directory where a file belongs (EISDIR)...
// These are the user's environment, not bugs: `dogsled: cannot write /path/placements.json: no
// space left on device (ENOSPC)`, exit 2, instead of an internal error with a stack.

import { DogsledError } from '../../core/common/errors.js';
import { systemErrorText } from '../../core/common/system-errors.js';
import { squeezedLine } from '../../core/text/clean.js';

/** `cannot <action> <path>: <why>`, keeping the cause for debugging. */
export function fsFailure(action: string, path: string, error: unknown): DogsledError {
  if (error instanceof DogsledError) return error;
  return new DogsledError(`cannot ${action} ${squeezedLine(path, 400)}: ${systemErrorText(error)}`, {
    cause: error,
  });
}
