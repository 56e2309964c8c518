// Public ids as Herdr encodes them: numbers in a bijective base-32 alphabet (1..9, A..Z without
// I, L, O, U, then 0 for 32), so the 10th workspace is `wA` and 33 is `11`. Counters only grow;
// an id is never handed out twice in a server's lifetime.

const ALPHABET = '123456789ABCDEFGHJKMNPQRSTVWXYZ0';

export function encodeNumber(n) {
  if (!Number.isInteger(n) || n < 1) throw new Error(`id numbers start at 1, got ${n}`);
  let out = '';
  let rest = n;
  while (rest > 0) {
    const digit = (rest - 1) % 32;
    out = ALPHABET[digit] + out;
    rest = Math.floor((rest - 1) / 32);
  }
  return out;
}

let lastMicros = 0n;
let counter = 0;

/** `term_<hex µs since epoch><hex counter>`, unique within the process. */
export function terminalId() {
  const micros = BigInt(Date.now()) * 1000n;
  if (micros === lastMicros) counter += 1;
  else {
    lastMicros = micros;
    counter = 0;
  }
  return `term_${micros.toString(16)}${counter.toString(16)}`;
}
