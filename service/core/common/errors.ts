// The one error vocabulary for failures a user can hit. Only cli/main.ts turns these into exit codes;
// library code throws and never exits. Plain Error means a bug and is shown with its stack.

import { EXIT } from './exit-codes.js';

export interface DogsledErrorOptions {
  /** Process exit status when this error ends a command (2 unless the spec says otherwise). */
  exitCode?: number;
  /** A second line telling the user what to do next. */
  hint?: string;
  cause?: unknown;
}

/**
 * Every bundle that carries this module has its own copy of the class: a hot bundle and the cold
 * file it loads on demand (scripts/build.mjs, COLD) each have one. The brand, shared through the
 * global symbol registry, lets one copy recognise an error thrown by another.
 */
const BRAND = Symbol.for('dogsled.DogsledError');

export class DogsledError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, options: DogsledErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DogsledError';
    this.exitCode = options.exitCode ?? EXIT.error;
    this.hint = options.hint;
  }
}
Object.defineProperty(DogsledError.prototype, BRAND, { value: true });
Object.defineProperty(DogsledError, Symbol.hasInstance, {
  value(this: unknown, value: unknown): boolean {
    // A subclass keeps the ordinary prototype test: only the base class is shared across copies.
    if (this !== DogsledError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && BRAND in value;
  },
});

export function isDogsledError(value: unknown): value is DogsledError {
  return value instanceof DogsledError;
}

/** The message of any thrown value, for wrapping causes into one-line errors. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Why a file the user named could not be opened, in words with the errno code:
 * `no such file or directory (ENOENT)`, not the bare code nor Node's syscall and path.
 */
export function fileErrorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string') return messageOf(error);
  // Node says `illegal operation on a directory`, which names neither the file nor the problem.
  if (code === 'EISDIR') return 'it is a directory (EISDIR)';
  const words = /^[A-Z0-9]+: ([^,\n]+)/.exec(messageOf(error))?.[1];
  return words ? `${words} (${code})` : code;
}
