import { describe, expect, it } from 'vitest';
import { formatAge, parseDuration } from '../../../../service/core/common/duration.js';
import { busyBetween } from '../../../../service/core/placement/cpu-busy.js';
import { needsTrim, SAMPLE_RETENTION_MS, trimCutoff } from '../../../../service/core/placement/samples.js';

describe('durations', () => {
  it.each([
    ['250', 250],
    ['250ms', 250],
    ['90s', 90_000],
    ['10m', 600_000],
    ['1h', 3_600_000],
    [' 30m ', 1_800_000],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each(['', '1.5h', '-1s', '10d', 'ten', '1 h', 's'])('refuses %j with a message naming it', (text) => {
    const result = parseDuration(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(`"${text}"`);
  });

  it('refuses a duration too large to count in milliseconds', () => {
    expect(parseDuration('99999999999999999h').ok).toBe(false);
  });

  it('formats ages compactly', () => {
    expect([850, 42_000, 180_000, 7_500_000, 7_200_000, 4 * 86_400_000].map(formatAge)).toEqual([
      '850ms',
      '42s',
      '3m',
      '2h 5m',
      '2h',
      '4d',
    ]);
  });
});

describe('cpu busy from cumulative ticks', () => {
  it('has no sample without a previous reading', () => {
    expect(busyBetween(null, { total: 100, idle: 50 })).toBeNull();
  });

  it('is the share of new ticks that were not idle', () => {
    expect(busyBetween({ total: 1000, idle: 800 }, { total: 1400, idle: 900 })).toBe(0.75);
  });

  it('refuses counters that went backwards or did not move', () => {
    expect(busyBetween({ total: 1000, idle: 800 }, { total: 900, idle: 700 })).toBeNull();
    expect(busyBetween({ total: 1000, idle: 800 }, { total: 1000, idle: 800 })).toBeNull();
    expect(busyBetween({ total: 1000, idle: 800 }, { total: 1100, idle: 950 })).toBeNull();
  });
});

describe('samples retention', () => {
  const now = 2_000_000_000_000;
  it('trims only when the oldest line is past seven days, or unreadable', () => {
    expect(needsTrim(now - SAMPLE_RETENTION_MS, now)).toBe(false);
    expect(needsTrim(now - SAMPLE_RETENTION_MS - 1, now)).toBe(true);
    expect(needsTrim(null, now)).toBe(true);
  });

  it('cuts deeper than seven days so the next trim is an hour away', () => {
    expect(trimCutoff(now)).toBe(now - SAMPLE_RETENTION_MS + 3_600_000);
  });
});
