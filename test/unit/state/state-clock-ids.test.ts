import { describe, expect, test } from 'vitest';
import { DogsledError } from '../../../service/core/common/errors.js';
import { clockFromEnv } from '../../../service/state/engine/clock.js';
import { newId } from '../../../service/state/engine/ids.js';
import { randomBytes } from '../../../service/state/engine/random.js';

describe('clockFromEnv', () => {
  test('reads the real clock by default', () => {
    const before = Date.now();
    const now = clockFromEnv({})();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  test('ignores DOGSLED_TEST_NOW_MS unless DOGSLED_TEST=1, even when it is malformed', () => {
    const now = clockFromEnv({ DOGSLED_TEST_NOW_MS: '1700000000000' })();
    expect(now).not.toBe(1_700_000_000_000);
    expect(() => clockFromEnv({ DOGSLED_TEST: 'yes', DOGSLED_TEST_NOW_MS: 'soon' })).not.toThrow();
  });

  test('honours DOGSLED_TEST_NOW_MS when DOGSLED_TEST=1', () => {
    const clock = clockFromEnv({ DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: '1700000000000' });
    expect(clock()).toBe(1_700_000_000_000);
    expect(clock()).toBe(1_700_000_000_000);
  });

  test.each(['soon', '1.5', '-3', '1e12', '99999999999999999999'])(
    'refuses DOGSLED_TEST_NOW_MS=%s',
    (value) => {
      const make = () => clockFromEnv({ DOGSLED_TEST: '1', DOGSLED_TEST_NOW_MS: value });
      expect(make).toThrow(DogsledError);
      expect(make).toThrow(`DOGSLED_TEST_NOW_MS: "${value}" is not an integer (Unix milliseconds)`);
    },
  );
});

describe('newId', () => {
  test('is the prefix, an underscore and 12 lowercase base32 characters', () => {
    expect(newId('r')).toMatch(/^r_[a-z2-7]{12}$/);
    expect(newId('job')).toMatch(/^job_[a-z2-7]{12}$/);
  });

  test('does not repeat across many draws', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newId('r')));
    expect(ids.size).toBe(20_000);
  });
});

describe('randomBytes (one read of /dev/urandom serves many calls)', () => {
  test('each call its own bytes, of its size, across block boundaries and past a block', () => {
    const sizes = [4, 8, 12, 1, 255, 256, 257, 1000, 4, 8];
    const seen = new Set<string>();
    for (let round = 0; round < 40; round++) {
      for (const size of sizes) {
        const bytes = randomBytes(size);
        expect(bytes.length).toBe(size);
        if (size >= 8) {
          const hex = bytes.toString('hex');
          expect(seen.has(hex)).toBe(false);
          seen.add(hex);
        }
      }
    }
  });

  test('changing a returned buffer changes no later bytes', () => {
    const first = randomBytes(16);
    first.fill(0);
    const later = Array.from({ length: 50 }, () => randomBytes(16).toString('hex'));
    expect(later).not.toContain('0'.repeat(32));
    expect(new Set(later).size).toBe(50);
  });
});
