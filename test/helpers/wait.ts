// The suite's one way to wait for something another process does: poll a check until it answers.
// Tests wait for the event or state they assert (a file, a record, a line of output), never for a
// fixed time; a generous timeout costs nothing when the event comes.

export interface WaitOptions {
  /** Give up after this long (default 10 s): the error names `what` and the check's last error. */
  timeoutMs?: number;
  /** Pause between checks (default 25 ms); a check that runs the CLI may want more. */
  intervalMs?: number;
}

/** What a check answers while the awaited thing has not happened yet. */
type NotYet = undefined | false;

/**
 * What is awaited, for the timeout's message. A function is called only when the wait gives up, so
 * the message can carry what a process said by then (its output read up front is empty).
 */
export type WaitWhat = string | (() => string);

function describeWhat(what: WaitWhat): string {
  if (typeof what === 'string') return what;
  try {
    return what();
  } catch (error) {
    return `(its description failed: ${error instanceof Error ? error.message : String(error)})`;
  }
}

/**
 * Runs `check` until it returns something other than `undefined` or `false`, and returns that.
 * A check that throws is tried again (a file not written yet); its last error is reported if the
 * wait times out. The check always runs once more after the deadline before the wait gives up, so
 * a slow poll on a busy machine never fails a state that has come.
 */
export async function waitFor<T>(
  what: WaitWhat,
  check: () => T | NotYet | Promise<T | NotYet>,
  options: WaitOptions = {},
): Promise<Exclude<T, NotYet>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const late = Date.now() >= deadline;
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as Exclude<T, NotYet>;
    } catch (error) {
      last = error;
    }
    if (late) {
      const why = last === undefined ? '' : `: ${last instanceof Error ? last.message : String(last)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${describeWhat(what)}${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
