// The injected clock: Unix milliseconds from Date.now, or a frozen instant for deterministic tests.
// DOGSLED_TEST_NOW_MS counts only together with DOGSLED_TEST=1, so a stray variable in a user's
// shell can never move a real host's clock; when it counts, a malformed value is an error.

import { DogsledError } from '../../core/common/errors.js';

export type Clock = () => number;

export function clockFromEnv(env: NodeJS.ProcessEnv): Clock {
  if (env.DOGSLED_TEST !== '1') return Date.now;
  const text = env.DOGSLED_TEST_NOW_MS;
  if (text === undefined || text === '') return Date.now;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) {
    throw new DogsledError(`DOGSLED_TEST_NOW_MS: "${text}" is not an integer (Unix milliseconds)`);
  }
  return () => value;
}
