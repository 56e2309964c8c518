// The rules of quota snapshots (spec, "Quota snapshots"): when a snapshot is due for collection,
// when it is stale, when a pushed one may replace the stored one (newer wins), when a pool is
// exhausted, and when a push to a peer is due. Pure: `now` is passed in.

import type { QuotaRow, QuotaSnapshot } from './quota-rows.js';

/** Without --cached, snapshots older than this are collected again; the service refreshes this often. */
export const QUOTA_REFRESH_MS = 5 * 60_000;
/** Older than this a snapshot is stale: shown as such, and never a reason to hold work back. */
export const QUOTA_STALE_MS = 15 * 60_000;
/**
 * A pushed snapshot may be at most this far ahead of the receiving host's clock. Without a bound,
 * one snapshot stamped years ahead (a broken clock, a hostile peer) would win against every real
 * one forever; ten minutes is far above the skew of hosts that keep time.
 */
export const QUOTA_FUTURE_SKEW_MS = 10 * 60_000;

/** What `quota` shows when there is no snapshot at all (spec). */
export function emptySnapshot(): QuotaSnapshot {
  return { version: 1, fetched_ms: 0, source: '', pools: [] };
}

/** How old the snapshot is at `now`; null for the empty snapshot. Never negative. */
export function snapshotAgeMs(snapshot: QuotaSnapshot, now: number): number | null {
  if (snapshot.fetched_ms <= 0) return null;
  return Math.max(0, now - snapshot.fetched_ms);
}

/**
 * Whether collection is due: no snapshot, one at least five minutes old, or one stamped ahead of
 * this clock beyond the skew (a clock that jumped back would otherwise keep it fresh for ever).
 */
export function refreshDue(snapshot: QuotaSnapshot, now: number): boolean {
  if (snapshot.fetched_ms <= 0) return true;
  if (snapshot.fetched_ms > now + QUOTA_FUTURE_SKEW_MS) return true;
  return now - snapshot.fetched_ms >= QUOTA_REFRESH_MS;
}

export function isStale(snapshot: QuotaSnapshot, now: number): boolean {
  return snapshot.fetched_ms <= 0 || now - snapshot.fetched_ms > QUOTA_STALE_MS;
}

export type StoreVerdict =
  | { store: true }
  /** The stored snapshot is as new or newer: it stays (not an error). */
  | { store: false; kept_fetched_ms: number }
  /** The snapshot cannot be right: refused with this reason. */
  | { store: false; refused: string };

/** Newer wins: an older (or equally old) snapshot never replaces the stored one. */
export function storeVerdict(
  current: QuotaSnapshot | undefined,
  incoming: QuotaSnapshot,
  now: number,
): StoreVerdict {
  if (incoming.fetched_ms <= 0) return { store: false, refused: 'fetched_ms is 0: an empty snapshot' };
  if (incoming.fetched_ms > now + QUOTA_FUTURE_SKEW_MS) {
    const ahead = Math.round((incoming.fetched_ms - now) / 1000);
    return { store: false, refused: `fetched_ms is ${ahead}s ahead of this host's clock` };
  }
  if (current !== undefined && current.fetched_ms >= incoming.fetched_ms) {
    return { store: false, kept_fetched_ms: current.fetched_ms };
  }
  return { store: true };
}

export interface ExhaustedPool {
  pool: string;
  /** When its first account frees up: the latest reset among that account's full windows. */
  until_ms: number;
}

/** A window that blocks its account now: at 100% with a reset time in the future. Error rows never do. */
export function blocksAccount(row: QuotaRow, now: number): boolean {
  return row.error === null && row.used_pct >= 100 && row.resets_ms !== null && row.resets_ms > now;
}

/**
 * Pools in which every account has a window at 100% with a reset time in the future (spec). An
 * account with only unknown (error) rows is not exhausted: unknown is never read as either full
 * or available. Ordered by pool name.
 */
export function exhaustedPools(snapshot: QuotaSnapshot, now: number): ExhaustedPool[] {
  const accounts = new Map<string, Map<string, number | null>>();
  for (const row of snapshot.pools) {
    const pool = accounts.get(row.pool) ?? new Map<string, number | null>();
    accounts.set(row.pool, pool);
    const blockedUntil = pool.get(row.account) ?? null;
    if (blocksAccount(row, now)) {
      pool.set(row.account, Math.max(blockedUntil ?? 0, row.resets_ms as number));
    } else if (!pool.has(row.account)) {
      pool.set(row.account, null);
    }
  }
  const result: ExhaustedPool[] = [];
  for (const [pool, byAccount] of accounts) {
    const until = [...byAccount.values()];
    if (until.length === 0 || until.some((ms) => ms === null)) continue;
    result.push({ pool, until_ms: Math.min(...(until as number[])) });
  }
  return result.sort((a, b) => (a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0));
}

/** Where pushing one collector's snapshots to one peer stands. */
export interface PushState {
  /** fetched_ms of the last snapshot the peer accepted (or kept a newer one against); 0 for none. */
  pushed_ms: number;
  /** Failures in a row; 0 after a success. */
  failures: number;
  /** No try before this (Unix ms); 0 when a try may happen at once. */
  retry_at_ms: number;
}

/** quota-collect.json: this host's collection attempts; failures in a row back off (common/backoff.ts). */
export type QuotaCollect = {
  version: 1;
  /** Failed collections in a row; 0 after a success. */
  failures: number;
  /** Why the last one failed (one safe line), or null. */
  last_error: string | null;
  last_attempt_ms: number;
  /** No automatic collection before this; --refresh ignores it. */
  retry_at_ms: number;
};

export const NO_PUSH: Readonly<PushState> = Object.freeze({ pushed_ms: 0, failures: 0, retry_at_ms: 0 });

/** Whether the snapshot stamped `fetched_ms` should go to this peer now. */
export function pushDue(state: PushState, fetched_ms: number, now: number): boolean {
  return fetched_ms > state.pushed_ms && now >= state.retry_at_ms;
}
