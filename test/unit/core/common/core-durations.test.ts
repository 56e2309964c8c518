// The limits of durations and intervals (core/duration.ts): a duration is at most 365 days, an
// interval at most a day and at least a millisecond; each refusal quotes what was typed.

import { describe, expect, it } from 'vitest';
import {
  MAX_DURATION_MS,
  MAX_INTERVAL_MS,
  parseDuration,
  parseSeconds,
} from '../../../../service/core/common/duration.js';

describe('duration limits', () => {
  it.each([
    ['8760h', MAX_DURATION_MS],
    ['525600m', MAX_DURATION_MS],
    ['31536000000', MAX_DURATION_MS],
    ['600h', 600 * 3_600_000],
    ['0', 0],
  ])('accepts %s', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each(['8761h', '31536000001', '525601m', '99999999999999999h'])(
    'refuses %s as longer than a year',
    (text) => {
      expect(parseDuration(text)).toEqual({
        ok: false,
        error: `duration "${text}" is longer than the limit of 365 days (8760h)`,
      });
    },
  );
});

describe('intervals in seconds', () => {
  it.each([
    ['10', 10_000],
    ['0.5', 500],
    ['0.001', 1],
    ['86400', MAX_INTERVAL_MS],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseSeconds(text)).toEqual({ ok: true, ms });
  });

  it.each([
    ['0', 'expected a positive number of seconds, got "0"'],
    ['-1', 'expected a positive number of seconds, got "-1"'],
    ['1e3', 'expected a positive number of seconds, got "1e3"'],
    ['soon', 'expected a positive number of seconds, got "soon"'],
    ['0.0001', '"0.0001" is shorter than a millisecond'],
    ['86400.5', '"86400.5" seconds is longer than the limit of one day (86400)'],
    ['2500000', '"2500000" seconds is longer than the limit of one day (86400)'],
  ])('refuses %j', (text, error) => {
    expect(parseSeconds(text)).toEqual({ ok: false, error });
  });
});
