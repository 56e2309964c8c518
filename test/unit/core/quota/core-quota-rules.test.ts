import { describe, expect, test } from 'vitest';
import type { QuotaRow, QuotaSnapshot } from '../../../../service/core/quota/quota-rows.js';
import {
  emptySnapshot,
  exhaustedPools,
  isStale,
  NO_PUSH,
  pushDue,
  refreshDue,
  snapshotAgeMs,
  storeVerdict,
} from '../../../../service/core/quota/quota-rules.js';

const NOW = 1_800_000_000_000;
const MIN = 60_000;

function snap(fetched_ms: number, pools: QuotaRow[] = []): QuotaSnapshot {
  return { version: 1, fetched_ms, source: 'mac', pools };
}

function r(
  pool: string,
  account: string,
  window: string,
  used_pct: number,
  resets_ms: number | null,
): QuotaRow {
  return { pool, account, window, used_pct, resets_ms, error: null };
}

describe('refresh and staleness', () => {
  test('the empty snapshot is version 1 with fetched_ms 0, due, stale and ageless', () => {
    const empty = emptySnapshot();
    expect(empty).toEqual({ version: 1, fetched_ms: 0, source: '', pools: [] });
    expect(refreshDue(empty, NOW)).toBe(true);
    expect(isStale(empty, NOW)).toBe(true);
    expect(snapshotAgeMs(empty, NOW)).toBeNull();
  });

  test('collection is due from five minutes on; stale past fifteen', () => {
    expect(refreshDue(snap(NOW - 5 * MIN + 1), NOW)).toBe(false);
    expect(refreshDue(snap(NOW - 5 * MIN), NOW)).toBe(true);
    expect(isStale(snap(NOW - 15 * MIN), NOW)).toBe(false);
    expect(isStale(snap(NOW - 15 * MIN - 1), NOW)).toBe(true);
  });

  test('a snapshot stamped far ahead of this clock is due, and its age is never negative', () => {
    expect(refreshDue(snap(NOW + 11 * MIN), NOW)).toBe(true);
    expect(refreshDue(snap(NOW + MIN), NOW)).toBe(false);
    expect(snapshotAgeMs(snap(NOW + MIN), NOW)).toBe(0);
  });
});

describe('newer wins', () => {
  test('a newer snapshot replaces; an older or equally old one keeps what is stored', () => {
    expect(storeVerdict(undefined, snap(NOW), NOW)).toEqual({ store: true });
    expect(storeVerdict(snap(NOW - MIN), snap(NOW), NOW)).toEqual({ store: true });
    expect(storeVerdict(snap(NOW), snap(NOW - MIN), NOW)).toEqual({ store: false, kept_fetched_ms: NOW });
    expect(storeVerdict(snap(NOW), snap(NOW), NOW)).toEqual({ store: false, kept_fetched_ms: NOW });
  });

  test('a snapshot from the far future or the empty one is refused, so it can never block newer ones', () => {
    expect(storeVerdict(snap(NOW), snap(NOW + 400 * 86_400_000), NOW)).toMatchObject({
      store: false,
      refused: expect.stringContaining('ahead'),
    });
    expect(storeVerdict(undefined, snap(Number.MAX_SAFE_INTEGER), NOW)).toMatchObject({
      refused: expect.any(String),
    });
    expect(storeVerdict(undefined, snap(0), NOW)).toMatchObject({
      refused: expect.stringContaining('empty'),
    });
    expect(storeVerdict(undefined, snap(NOW + 9 * MIN), NOW)).toEqual({ store: true });
  });
});

describe('exhaustion', () => {
  const later = NOW + 2 * 60 * MIN;

  test('a pool is exhausted when every account has a window at 100% with a future reset', () => {
    const rows = [
      r('codex', 'a', 'primary', 100, later),
      r('codex', 'a', 'secondary', 20, later + MIN),
      r('codex', 'b', 'primary', 10, later),
      r('codex', 'b', 'secondary', 100, NOW + MIN),
    ];
    expect(exhaustedPools(snap(NOW, rows), NOW)).toEqual([{ pool: 'codex', until_ms: NOW + MIN }]);
  });

  test('one account with room leaves the pool available', () => {
    const rows = [r('claude', 'a', 'five_hour', 100, later), r('claude', 'b', 'five_hour', 99.9, later)];
    expect(exhaustedPools(snap(NOW, rows), NOW)).toEqual([]);
  });

  test('a window at 100% whose reset has passed, or that has no reset time, does not block', () => {
    expect(exhaustedPools(snap(NOW, [r('p', 'a', 'w', 100, NOW)]), NOW)).toEqual([]);
    expect(exhaustedPools(snap(NOW, [r('p', 'a', 'w', 100, null)]), NOW)).toEqual([]);
  });

  test('an account known only by error rows is unknown, never exhausted', () => {
    const rows: QuotaRow[] = [
      r('claude', 'a', 'five_hour', 100, later),
      { pool: 'claude', account: 'b', window: 'five_hour', used_pct: 0, resets_ms: null, error: 'HTTP 401' },
    ];
    expect(exhaustedPools(snap(NOW, rows), NOW)).toEqual([]);
    // An error row claiming 100% with a future reset still counts for nothing.
    const lying: QuotaRow = { ...r('x', 'a', 'w', 100, later), error: 'failed' };
    expect(exhaustedPools(snap(NOW, [lying]), NOW)).toEqual([]);
  });

  test('an account is blocked until its latest full window resets; the pool frees with its first account', () => {
    const rows = [
      r('p', 'a', 'short', 100, NOW + MIN),
      r('p', 'a', 'long', 100, NOW + 9 * MIN),
      r('p', 'b', 'long', 100, NOW + 5 * MIN),
    ];
    expect(exhaustedPools(snap(NOW, rows), NOW)).toEqual([{ pool: 'p', until_ms: NOW + 5 * MIN }]);
  });

  test('pools come sorted by name', () => {
    const rows = [r('z', 'a', 'w', 100, later), r('a', 'a', 'w', 100, later)];
    expect(exhaustedPools(snap(NOW, rows), NOW).map((p) => p.pool)).toEqual(['a', 'z']);
  });
});

describe('pushes', () => {
  test('a snapshot goes to a peer once, unless a failure makes it wait', () => {
    expect(pushDue(NO_PUSH, NOW, NOW)).toBe(true);
    expect(pushDue({ pushed_ms: NOW, failures: 0, retry_at_ms: 0 }, NOW, NOW)).toBe(false);
    expect(pushDue({ pushed_ms: NOW, failures: 0, retry_at_ms: 0 }, NOW + 1, NOW)).toBe(true);
    expect(pushDue({ pushed_ms: 0, failures: 2, retry_at_ms: NOW + 1 }, NOW, NOW)).toBe(false);
    expect(pushDue({ pushed_ms: 0, failures: 2, retry_at_ms: NOW }, NOW, NOW)).toBe(true);
  });
});
