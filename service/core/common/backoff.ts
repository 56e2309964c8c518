// The one retry schedule of the spec ("Backoff"): inbox leases, a sender's follow-up, peer reads and
// agent launch retries all wait 10 s, then twice as long each time, with jitter, never more than
// 5 min. Pure: the caller passes the random draw, so tests and replays are exact.

/** The first wait after a failure. */
export const BACKOFF_FIRST_MS = 10_000;
/** No wait is ever longer than this, jitter included. */
export const BACKOFF_CAP_MS = 5 * 60_000;
/** Each wait is its nominal value scaled by a factor in [1 - JITTER, 1 + JITTER). */
const JITTER = 0.2;

/**
 * The nominal wait before retry number `attempt + 1` (attempt 0 is the wait after the first failure):
 * 10 s, 20 s, 40 s, … capped at 5 min. What a person is shown (`retry in 40s`).
 */
export function backoffNominalMs(attempt: number): number {
  const n = Math.max(0, Math.floor(attempt));
  // 2^5 × 10 s already passes the cap; stop doubling before the number grows without bound.
  if (n >= 5) return BACKOFF_CAP_MS;
  return Math.min(BACKOFF_CAP_MS, BACKOFF_FIRST_MS * 2 ** n);
}

/**
 * The wait with jitter, so many waiters that failed together do not retry in lockstep. `random` is a
 * draw in [0, 1) (Math.random at the edge).
 */
export function backoffDelayMs(attempt: number, random: number): number {
  const r = Math.min(Math.max(random, 0), 0.999_999);
  const scaled = backoffNominalMs(attempt) * (1 - JITTER + 2 * JITTER * r);
  return Math.min(BACKOFF_CAP_MS, Math.round(scaled));
}

/** When the next try is due, after the failure at `failedMs` that ended try number `attempt + 1`. */
export function backoffRetryAt(failedMs: number, attempt: number, random: number): number {
  return failedMs + backoffDelayMs(attempt, random);
}
