// Record ids: a short type prefix and 12 lowercase base32 characters (60 random bits) from the
// crypto RNG, e.g. `r_k3v9q2m7xa4d`. Ids are never reused: collisions are negligible at the
// number of records a host ever makes, and nothing derives an id from a counter or a clock.

import { randomBytes } from './random.js';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const LENGTH = 12;

/** `newId('r')` -> `r_` + 12 base32 characters. */
export function newId(prefix: string): string {
  // 256 is a multiple of 32, so taking the low 5 bits of each byte is unbiased.
  const bytes = randomBytes(LENGTH);
  let id = `${prefix}_`;
  for (const byte of bytes) id += ALPHABET[byte & 31];
  return id;
}
