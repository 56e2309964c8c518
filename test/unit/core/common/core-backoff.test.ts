import { describe, expect, it } from 'vitest';
import {
  BACKOFF_CAP_MS,
  backoffDelayMs,
  backoffNominalMs,
  backoffRetryAt,
} from '../../../../service/core/common/backoff.js';

describe('the shared backoff schedule', () => {
  it('starts at 10 s and doubles: 10, 20, 40, 80, 160 s, then stays at the 5 min cap', () => {
    const nominal = [0, 1, 2, 3, 4, 5, 6, 50].map(backoffNominalMs);
    expect(nominal).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });

  it('treats a negative or fractional attempt as the whole attempt below it, never below the first', () => {
    expect(backoffNominalMs(-3)).toBe(10_000);
    expect(backoffNominalMs(2.7)).toBe(40_000);
  });

  it('jitters within 20% either side of the nominal wait', () => {
    expect(backoffDelayMs(2, 0)).toBe(32_000);
    expect(backoffDelayMs(2, 0.5)).toBe(40_000);
    expect(backoffDelayMs(2, 0.999_999)).toBe(48_000);
    expect(backoffDelayMs(2, 0.25)).toBe(36_000);
  });

  it('never waits longer than the cap, jitter included, and clamps a draw outside [0, 1)', () => {
    for (const r of [0, 0.5, 0.99, 1, 7]) expect(backoffDelayMs(40, r)).toBeLessThanOrEqual(BACKOFF_CAP_MS);
    expect(backoffDelayMs(0, -1)).toBe(8_000);
  });

  it('schedules the next try from the failure time', () => {
    expect(backoffRetryAt(1_000_000, 0, 0.5)).toBe(1_010_000);
  });
});
