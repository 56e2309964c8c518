// Timers for durations a user chose (--max, --timeout). Node's setTimeout holds at most 2^31 - 1 ms
// (24.8 days) and fires at once beyond that with a TimeoutOverflowWarning, so a long duration is
// chained from shorter timers, each re-measured on the monotonic clock: it never fires early, and
// it is never off by more than one timer's lateness. `service/core` stays timer-free.

/**
 * Milliseconds on the monotonic clock since the process started, as performance.now() counts them,
 * without loading node:perf_hooks (a few milliseconds of every command's start-up).
 */
export function monotonicMs(): number {
  return process.uptime() * 1000;
}

/** setTimeout's longest delay. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LongTimer {
  clear(): void;
}

export interface LongTimerOptions {
  /** false: the timer alone does not keep the process alive (as AbortSignal.timeout's). */
  ref?: boolean;
  /** The longest single timer; tests shorten it to see the chain work. */
  stepMs?: number;
}

/** Calls `fn` once `ms` have passed on the monotonic clock, however long `ms` is. */
export function longTimeout(ms: number, fn: () => void, options: LongTimerOptions = {}): LongTimer {
  const due = monotonicMs() + Math.max(0, ms);
  const step = Math.min(options.stepMs ?? MAX_TIMER_MS, MAX_TIMER_MS);
  let timer: NodeJS.Timeout | undefined;
  let cleared = false;
  const arm = (): void => {
    if (cleared) return;
    const left = due - monotonicMs();
    // A timer may wake a fraction of a millisecond before the monotonic clock says it is due.
    if (left <= 0) {
      fn();
      return;
    }
    timer = setTimeout(arm, Math.min(Math.ceil(left), step));
    if (options.ref === false) timer.unref();
  };
  arm();
  return {
    clear: () => {
      cleared = true;
      clearTimeout(timer);
    },
  };
}

/**
 * A signal that aborts after `ms` with a TimeoutError, like AbortSignal.timeout but correct beyond
 * 24.8 days. Its timer never keeps the process alive by itself.
 */
export function timeoutSignal(ms: number, options: Pick<LongTimerOptions, 'stepMs'> = {}): AbortSignal {
  const controller = new AbortController();
  longTimeout(
    ms,
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    { ...options, ref: false },
  );
  return controller.signal;
}
