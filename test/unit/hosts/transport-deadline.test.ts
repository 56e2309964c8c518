import { describe, expect, it } from 'vitest';
import { deadlineOf, ROUTINE_TIMEOUT_MS } from '../../../service/transport/types.js';

describe('deadlineOf', () => {
  it('is the routine 30 s when the caller gives none or not a number', () => {
    expect(deadlineOf({})).toBe(ROUTINE_TIMEOUT_MS);
    expect(deadlineOf({ timeoutMs: Number.NaN })).toBe(30_000);
  });

  it('holds a huge deadline at what a timer can wait, and a tiny or negative one at 1 ms', () => {
    expect(deadlineOf({ timeoutMs: 30 * 24 * 3600_000 })).toBe(2 ** 31 - 1);
    expect(deadlineOf({ timeoutMs: Number.POSITIVE_INFINITY })).toBe(2 ** 31 - 1);
    expect(deadlineOf({ timeoutMs: -5 })).toBe(1);
    expect(deadlineOf({ timeoutMs: 0.2 })).toBe(1);
    expect(deadlineOf({ timeoutMs: 1500.4 })).toBe(1500);
  });
});
