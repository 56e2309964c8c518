// Quota rows of the version-1 contract (spec, "Quota snapshots"), mapped from what CLIProxy hands
// back: Claude's and Codex's usage answers (read through CLIProxy's api-call) and the buckets of
// `quota/fetch` for every other provider. Pure: answers are plain parsed JSON, `now` is passed in.
// Every string that came from a provider is made one escape-free, bounded line here, before it is
// stored, pushed or shown; a number that is not a finite percentage is never guessed into one.

import { squeezedLine } from '../text/clean.js';

export interface QuotaRow {
  /** The lowercase CLIProxy provider name (claude, codex, or a plugin provider). */
  pool: string;
  /** The account label, redacted (accountLabel). */
  account: string;
  /** The provider's window name. */
  window: string;
  /** 0..100. An error row has 0, which means unknown, never available. */
  used_pct: number;
  /** Unix ms, or null when unavailable. */
  resets_ms: number | null;
  /** A safe description when this row is unknown, else null. */
  error: string | null;
}

export interface QuotaSnapshot {
  version: 1;
  fetched_ms: number;
  /** The collector's hostname ("" in the empty snapshot). */
  source: string;
  pools: QuotaRow[];
}

export const CLAUDE_WINDOWS = ['five_hour', 'seven_day', 'seven_day_opus', 'seven_day_sonnet'] as const;
export const CODEX_WINDOWS = ['primary', 'secondary'] as const;
/** The window of the one error row a failed `quota/fetch` gives. */
export const FETCH_ERROR_WINDOW = 'quota';

/** Longest text kept per field: far above any real name, small enough that a hostile answer stays small. */
export const TEXT_LIMITS = { pool: 64, account: 128, window: 96, error: 300, source: 255 } as const;

/** The pool of a provider name: lowercase, one safe line; `unknown` when nothing is left. */
export function poolName(provider: string): string {
  return squeezedLine(provider, TEXT_LIMITS.pool).toLowerCase() || 'unknown';
}

/** A percentage clamped to 0..100, or null when it is not a finite number. */
export function clampPct(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return Math.min(100, Math.max(0, value));
}

/** `(1 - remainingFraction) * 100`, limited to 0..100 (spec); null when the fraction is not a number. */
export function usedFromRemaining(fraction: unknown): number | null {
  if (typeof fraction !== 'number' || !Number.isFinite(fraction)) return null;
  return clampPct((1 - fraction) * 100);
}

/** Longest future a reset time may claim (ten years): past it the value is garbage, not a reset. */
const MAX_RESET_AHEAD_MS = 10 * 365 * 86_400_000;

/**
 * A reset time as Unix ms: an RFC 3339 string, or a number of Unix seconds (below 10^12) or ms.
 * Null when absent, unparsable, not positive, or absurdly far ahead of `now`.
 */
export function resetMs(value: unknown, now: number): number | null {
  let ms: number;
  if (typeof value === 'string' && value.trim() !== '') ms = Date.parse(value.trim());
  else if (typeof value === 'number' && Number.isFinite(value)) ms = value < 1e12 ? value * 1000 : value;
  else return null;
  if (!Number.isFinite(ms) || ms <= 0 || ms > now + MAX_RESET_AHEAD_MS) return null;
  return Math.round(ms);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function row(pool: string, account: string, window: string, used: number, resets: number | null): QuotaRow {
  return {
    pool,
    account,
    window: squeezedLine(window, TEXT_LIMITS.window) || FETCH_ERROR_WINDOW,
    used_pct: used,
    resets_ms: resets,
    error: null,
  };
}

/** Error rows of a failed account: one per window, zero usage, no reset time (spec). */
export function accountErrorRows(
  pool: string,
  account: string,
  windows: readonly string[],
  error: string,
): QuotaRow[] {
  const text = squeezedLine(error, TEXT_LIMITS.error) || 'failed';
  return windows.map((window) => ({ pool, account, window, used_pct: 0, resets_ms: null, error: text }));
}

/** The one error row of a failed `quota/fetch`, with the window `quota` (spec). */
export function fetchErrorRow(pool: string, account: string, error: string): QuotaRow {
  return accountErrorRows(pool, account, [FETCH_ERROR_WINDOW], error)[0] as QuotaRow;
}

/**
 * Claude's usage answer: `{five_hour: {utilization, resets_at}, seven_day: …, seven_day_opus: …,
 * seven_day_sonnet: …}` with utilization a percentage. A window the plan does not have is null and
 * gives no row; an answer with none of the windows is a failed account.
 */
export function claudeRows(account: string, answer: unknown, now: number): QuotaRow[] {
  const body = record(answer);
  const rows: QuotaRow[] = [];
  for (const window of CLAUDE_WINDOWS) {
    const entry = record(body?.[window]);
    if (!entry) continue;
    const used = clampPct(entry.utilization);
    if (used === null) {
      rows.push(...accountErrorRows('claude', account, [window], 'utilization is not a number'));
      continue;
    }
    rows.push(row('claude', account, window, used, resetMs(entry.resets_at, now)));
  }
  if (rows.length === 0)
    return accountErrorRows('claude', account, CLAUDE_WINDOWS, 'usage answer has no windows');
  return rows;
}

/**
 * Codex's usage answer: `{rate_limit: {primary_window: {used_percent, reset_at | reset_after_seconds},
 * secondary_window: …}}`, reset_at in Unix seconds. A missing window gives no row; an answer
 * without a rate limit is a failed account.
 */
export function codexRows(account: string, answer: unknown, now: number): QuotaRow[] {
  const limit = record(record(answer)?.rate_limit);
  const rows: QuotaRow[] = [];
  for (const window of CODEX_WINDOWS) {
    const entry = record(limit?.[`${window}_window`]);
    if (!entry) continue;
    const used = clampPct(entry.used_percent);
    if (used === null) {
      rows.push(...accountErrorRows('codex', account, [window], 'used_percent is not a number'));
      continue;
    }
    let resets = resetMs(entry.reset_at, now);
    const after = entry.reset_after_seconds;
    if (resets === null && typeof after === 'number' && Number.isFinite(after) && after >= 0) {
      resets = resetMs(now + after * 1000, now);
    }
    rows.push(row('codex', account, window, used, resets));
  }
  if (rows.length === 0)
    return accountErrorRows('codex', account, CODEX_WINDOWS, 'usage answer has no rate limit');
  return rows;
}

/** A group's display name as a window prefix: lowercase, runs of anything but [a-z0-9_-] as one `-`. */
export function groupName(displayName: unknown, index: number): string {
  const text = typeof displayName === 'string' ? squeezedLine(displayName, TEXT_LIMITS.window) : '';
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return name || `group${index + 1}`;
}

/**
 * `quota/fetch` buckets: `{groups: [{displayName, buckets: [{window, remainingFraction, resetTime}]}]}`.
 * Each bucket is one row; with more than one group its window is `<group>-<window>`. A bucket
 * without a usable fraction is an error row of its own window. An answer without groups is a
 * failed fetch.
 */
export function bucketRows(pool: string, account: string, answer: unknown, now: number): QuotaRow[] {
  const groups = record(answer)?.groups;
  if (!Array.isArray(groups)) return [fetchErrorRow(pool, account, 'quota answer has no groups')];
  const several = groups.length > 1;
  const rows: QuotaRow[] = [];
  groups.forEach((value, index) => {
    const group = record(value);
    const buckets = group?.buckets;
    if (!Array.isArray(buckets)) return;
    const prefix = several ? `${groupName(group?.displayName, index)}-` : '';
    for (const item of buckets) {
      const bucket = record(item);
      if (!bucket) continue;
      const raw = typeof bucket.window === 'string' ? squeezedLine(bucket.window, TEXT_LIMITS.window) : '';
      const window = squeezedLine(`${prefix}${raw || FETCH_ERROR_WINDOW}`, TEXT_LIMITS.window);
      const used = usedFromRemaining(bucket.remainingFraction);
      if (used === null) {
        rows.push(...accountErrorRows(pool, account, [window], 'remainingFraction is not a number'));
        continue;
      }
      rows.push(row(pool, account, window, used, resetMs(bucket.resetTime, now)));
    }
  });
  return rows;
}

/** What CLIProxy lists about one credential that can name its account. */
export interface AccountFacts {
  email?: unknown;
  label?: unknown;
  account?: unknown;
  name?: unknown;
  auth_index?: unknown;
}

/**
 * The account label, the same for every provider (spec: plugin labels follow Claude's and Codex's
 * redaction): the credential's email, else its label, account or file name (without `.json`), else
 * its auth index; one safe line. Any word in it that looks like a secret (an API key or token that a
 * config credential may carry as its label) keeps only its first and last four characters.
 */
export function accountLabel(facts: AccountFacts): string {
  for (const candidate of [facts.email, facts.label, facts.account, facts.name, facts.auth_index]) {
    if (typeof candidate !== 'string') continue;
    let text = squeezedLine(candidate, TEXT_LIMITS.account);
    if (candidate === facts.name) text = text.replace(/\.json$/i, '');
    if (text !== '') return redactSecrets(text);
  }
  return 'unknown';
}

/** Token prefixes of well-known secrets: always masked, whatever their length. */
const SECRET_PREFIX = /^(sk-|sk_|rk_|pk_|ghp_|gho_|github_pat_|xox[abpr]-|AIza|ya29\.|eyJ)/;

/** Masks each word that looks like a key or token: `sk-ant-api03-…` becomes `sk-a…9xQz`. */
export function redactSecrets(text: string): string {
  return text
    .split(' ')
    .map((word) => (looksSecret(word) ? `${word.slice(0, 4)}…${word.slice(-4)}` : word))
    .join(' ');
}

function looksSecret(word: string): boolean {
  if (word.includes('@') || word.length < 12) return false;
  if (SECRET_PREFIX.test(word)) return true;
  // A long unbroken run of key characters with letters and digits mixed: a key, not a name.
  return (
    word.length >= 24 && /^[A-Za-z0-9._~+/=-]+$/.test(word) && /[0-9]/.test(word) && /[A-Za-z]/.test(word)
  );
}

/**
 * Labels that repeat within a pool (two credentials of one email) get ` (2)`, ` (3)`…, so each account
 * stays its own account for the exhaustion rule.
 */
export function distinctAccounts(labels: ReadonlyArray<{ pool: string; account: string }>): string[] {
  const seen = new Map<string, number>();
  return labels.map(({ pool, account }) => {
    const key = `${pool}\u0000${account}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n === 1 ? account : `${account} (${n})`;
  });
}

/**
 * A snapshot that came from elsewhere (a peer's push) with every text field made one safe, bounded
 * line, as the collector would have written it; loose extra fields stay as they came.
 */
export function cleanSnapshot<S extends QuotaSnapshot>(snapshot: S): S {
  return {
    ...snapshot,
    source: squeezedLine(snapshot.source, TEXT_LIMITS.source),
    pools: snapshot.pools.map((row) => ({
      ...row,
      pool: squeezedLine(row.pool, TEXT_LIMITS.pool) || 'unknown',
      account: squeezedLine(row.account, TEXT_LIMITS.account),
      window: squeezedLine(row.window, TEXT_LIMITS.window) || FETCH_ERROR_WINDOW,
      error: row.error === null ? null : squeezedLine(row.error, TEXT_LIMITS.error) || 'failed',
    })),
  };
}
