// One `--max` deadline per command (core/budget.ts holds the rule). Every operation runs through
// `step`, which gives it the remaining budget capped by its kind as an AbortSignal and turns a
// timeout into one line naming the operation that ran out; a wait takes `signal()`. Time is the
// monotonic clock (monotonicMs, 0 at process start) and timers are long-safe (timers.ts).

import { DogsledError } from '../core/common/errors.js';
import {
  exceededMessage,
  MAX_DEFAULT_MS,
  type OperationKind,
  operationMs,
} from '../core/placement/budget.js';
import { longTimeout, monotonicMs, timeoutSignal } from './timers.js';

export class Deadline {
  /** When the budget ends, on the monotonic clock. */
  private readonly endsAt: number;

  /** `startedAt` is on the monotonic clock: now by default, 0 for the process's start. */
  constructor(
    readonly maxMs: number = MAX_DEFAULT_MS,
    startedAt: number = monotonicMs(),
  ) {
    this.endsAt = startedAt + maxMs;
  }

  /** The spec's `--max`: one deadline from the command's start, so start-up counts too. */
  static fromProcessStart(maxMs: number): Deadline {
    return new Deadline(maxMs, 0);
  }

  /** What remains of the whole budget. */
  remaining(): number {
    return Math.max(0, this.endsAt - monotonicMs());
  }

  expired(): boolean {
    return this.remaining() === 0;
  }

  /** What an operation of `kind` may take now. */
  allowance(kind: OperationKind): number {
    return operationMs(kind, this.endsAt, monotonicMs());
  }

  /** Aborts (TimeoutError) when the whole budget ends; for waits, which are not capped. */
  signal(): AbortSignal {
    return timeoutSignal(this.remaining());
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
    let timer: { clear(): void } | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = longTimeout(allowed, () => {
        const error = this.exceeded(operation, allowed);
        controller.abort(error);
        reject(error);
      });
    });
    try {
      return await Promise.race([fn(controller.signal), timeout]);
    } finally {
      timer?.clear();
    }
  }
}
