// Durations and intervals as the command line and config files write them. A duration is an
// integer count of milliseconds, or an integer with an s, m or h suffix; fractions and other units
// are refused so "1.5h" never silently means 1 h. An interval (`--interval`) is a number of seconds,
// decimals allowed. Both have an upper limit, so a typo is refused instead of waiting for years.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const DURATION = /^(\d+)(ms|s|m|h)?$/;
const SECONDS = /^\d+(\.\d+)?$/;

const DAY_MS = 86_400_000;
/** The longest duration: a year is longer than any job or wait this tool is for. */
export const MAX_DURATION_MS = 365 * DAY_MS;
/** The longest interval between two measurements or refreshes. */
export const MAX_INTERVAL_MS = DAY_MS;

export type DurationResult = { ok: true; ms: number } | { ok: false; error: string };

/** A duration from 0 to MAX_DURATION_MS. */
export function parseDuration(text: string): DurationResult {
  const match = DURATION.exec(text.trim());
  if (!match) {
    return { ok: false, error: `bad duration "${text}": use an integer with ms, s, m or h (90s, 10m, 1h)` };
  }
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1);
  if (!Number.isSafeInteger(ms) || ms > MAX_DURATION_MS) {
    return { ok: false, error: `duration "${text}" is longer than the limit of 365 days (8760h)` };
  }
  return { ok: true, ms };
}

/** `10`, `0.5`: a positive number of seconds, at most a day, returned in whole milliseconds (>= 1). */
export function parseSeconds(text: string): DurationResult {
  const value = Number(text);
  if (!SECONDS.test(text.trim()) || !Number.isFinite(value) || value <= 0) {
    return { ok: false, error: `expected a positive number of seconds, got "${text}"` };
  }
  if (value * 1000 > MAX_INTERVAL_MS) {
    return { ok: false, error: `"${text}" seconds is longer than the limit of one day (86400)` };
  }
  const ms = Math.round(value * 1000);
  if (ms < 1) return { ok: false, error: `"${text}" is shorter than a millisecond` };
  return { ok: true, ms };
}

/** Short human form of a span: 850ms, 42s, 3m, 2h 5m, 4d. */
export function formatAge(ms: number): string {
  const abs = Math.max(0, Math.round(ms));
  if (abs < 1_000) return `${abs}ms`;
  const s = Math.floor(abs / 1_000);
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 === 0 ? `${h}h` : `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d`;
}
