import { describe, expect, test } from 'vitest';
import {
  harnessOfTicket,
  isHeld,
  mayHold,
  poolOfHarness,
  quotaHold,
  sameHold,
  ticketHolds,
} from '../../../../service/core/quota/quota-hold.js';
import type { QuotaRow, QuotaSnapshot } from '../../../../service/core/quota/quota-rows.js';

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

describe('holds at admission', () => {
  const exhausted = snap(NOW - 60_000, [full('codex', 'a', NOW + 600_000)]);
  const agent = (id: string, kind: string) => ({ id, agent: { kind, launch: 'l_x' } });
  const job = { id: 't_job', request: { command: ['codex'] }, agent: null };

  test('only a ticket naming a harness with a pool is held; a job or a placement never is', () => {
    expect([agent('a', 'codex'), agent('b', 'claude'), agent('c', 'pi'), job].map(harnessOfTicket)).toEqual([
      'codex',
      'claude',
      'pi',
      null,
    ]);
    expect(harnessOfTicket({ id: 'x', agent: { kind: 7 } })).toBeNull();
    const holds = ticketHolds([agent('a', 'codex'), agent('b', 'claude'), job], exhausted, ON, NOW);
    expect([...holds.keys()]).toEqual(['a']);
    expect(holds.get('a')?.until_ms).toBe(NOW + 600_000);
  });

  test('the snapshot is worth reading only when a pending ticket could be held', () => {
    expect(mayHold([job, agent('c', 'pi')], ON)).toBe(false);
    expect(mayHold([job, agent('a', 'codex')], ON)).toBe(true);
    expect(mayHold([agent('a', 'codex')], { hold_when_exhausted: false })).toBe(false);
  });

  test('a recorded hold stands until its reset, and only a change is a change', () => {
    const hold = quotaHold('codex', exhausted, ON, NOW);
    expect(isHeld({ hold }, NOW)).toBe(true);
    expect(isHeld({ hold }, NOW + 600_000)).toBe(false);
    expect(isHeld({ hold: null }, NOW)).toBe(false);
    expect(isHeld({}, NOW)).toBe(false);
    expect(sameHold(hold, hold ? { ...hold } : null)).toBe(true);
    expect(sameHold(hold, null)).toBe(false);
    expect(sameHold(undefined, null)).toBe(true);
    expect(sameHold(hold, hold ? { ...hold, until_ms: NOW + 1 } : null)).toBe(false);
  });
});
