// A system error (ENOSPC, EROFS, EACCES, EISDIR...) as one line: what every front end shows when the
// system refuses a file, and what the state layer's one-line file errors (state/engine/fs-errors.ts)
// are made of. Pure: it reads only the error object it is given.

import { squeezedLine } from '../text/clean.js';
import { messageOf } from './errors.js';

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
