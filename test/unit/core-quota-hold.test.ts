import { describe, expect, test } from 'vitest';
import { poolOfHarness, quotaHold } from '../../service/core/quota-hold.js';
import type { QuotaRow, QuotaSnapshot } from '../../service/core/quota-rows.js';

const NOW = 1_800_000_000_000;
const ON = { hold_when_exhausted: true };

function snap(fetched_ms: number, pools: QuotaRow[]): QuotaSnapshot {
  return { version: 1, fetched_ms, source: 'mac', pools };
}
const full = (pool: string, account: string, resets_ms: number): QuotaRow => ({
  pool,
  account,
  window: 'primary',
  used_pct: 100,
  resets_ms,
  error: null,
});

describe('quota-aware admission', () => {
  const exhausted = snap(NOW - 60_000, [
    full('codex', 'a', NOW + 3_600_000),
    full('codex', 'b', NOW + 600_000),
  ]);

  test('a Codex child waits while every Codex account is full, until the first frees up', () => {
    expect(quotaHold('codex', exhausted, ON, NOW)).toEqual({
      pool: 'codex',
      until_ms: NOW + 600_000,
      reason: 'codex quota exhausted: every account is at 100% until its reset',
    });
  });

  test('after the reset, or for another harness, nothing waits', () => {
    expect(quotaHold('codex', exhausted, ON, NOW + 600_000)).toBeNull();
    expect(quotaHold('claude', exhausted, ON, NOW)).toBeNull();
    expect(quotaHold('pi', exhausted, ON, NOW)).toBeNull();
  });

  test('a stale snapshot never holds work back: unknown is not exhausted', () => {
    const old = { ...exhausted, fetched_ms: NOW - 16 * 60_000 };
    expect(
      quotaHold(
        'codex',
        { ...old, pools: exhausted.pools.map((r) => ({ ...r, resets_ms: NOW + 9e6 })) },
        ON,
        NOW,
      ),
    ).toBeNull();
  });

  test('the policy key switches it off', () => {
    expect(quotaHold('codex', exhausted, { hold_when_exhausted: false }, NOW)).toBeNull();
  });

  test('harnesses map to their pools; Pi has none', () => {
    expect([poolOfHarness('claude'), poolOfHarness('codex'), poolOfHarness('pi')]).toEqual([
      'claude',
      'codex',
      null,
    ]);
  });
});
