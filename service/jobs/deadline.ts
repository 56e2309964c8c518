// One `--max` deadline per command (core/budget.ts holds the rule). Every operation runs through
// `step`, which gives it the remaining budget capped by its kind as an AbortSignal and turns a
// timeout into one line naming the operation that ran out.

import { exceededMessage, MAX_DEFAULT_MS, type OperationKind, operationMs } from '../core/budget.js';
import { DogsledError } from '../errors.js';

export class Deadline {
  readonly deadlineMs: number;

  /** `startMs` is the command's start on the real clock (performance.timeOrigin + now). */
  constructor(
    readonly maxMs: number = MAX_DEFAULT_MS,
    startMs: number = Date.now(),
  ) {
    this.deadlineMs = startMs + maxMs;
  }

  /** What remains of the whole budget. */
  remaining(): number {
    return Math.max(0, this.deadlineMs - Date.now());
  }

  expired(): boolean {
    return this.remaining() === 0;
  }

  /** What an operation of `kind` may take now. */
  allowance(kind: OperationKind): number {
    return operationMs(kind, this.deadlineMs, Date.now());
  }

  /** The error for `operation` when it ran out of its allowance. */
  exceeded(operation: string, allowedMs: number): DogsledError {
    const byMax = this.remaining() <= 0 || allowedMs >= this.remaining();
    return new DogsledError(exceededMessage(operation, allowedMs, byMax, this.maxMs));
  }

  /**
   * Runs `fn` with a signal that aborts at the operation's allowance; if the allowance runs out first,
   * the step fails with the operation's name, whatever `fn` was doing.
   */
  async step<T>(operation: string, kind: OperationKind, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const allowed = this.allowance(kind);
    if (allowed <= 0) throw this.exceeded(operation, allowed);
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = this.exceeded(operation, allowed);
        controller.abort(error);
        reject(error);
      }, allowed);
    });
    try {
      return await Promise.race([fn(controller.signal), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
