// sweep-request.json's hand check (service/state/checks/sweep-request-check.ts) judges exactly as its
// zod schema does: on thousands of generated records (every JSON value in every field, missing
// fields, fields a newer dogsled added, `__proto__`), the same verdict, the same data back with its
// fields in the same order (what the store writes), and the same first issue (path and words, what a
// quarantine warning says). The lean hook writes the file through it on every Stop.

import { describe, expect, it } from 'vitest';
import { SweepRequestCheck } from '../../../service/state/checks/sweep-request-check.js';
import { SweepRequestSchema } from '../../../service/state/schemas/sweep-schemas.js';

/** Every kind of JSON value, and the numbers at the edges of an int. */
const VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  1,
  -1,
  1.5,
  1_900_000_000_000,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER - 2,
  JSON.parse('1e400'),
  JSON.parse('-1e400'),
  '',
  'w1:p2',
  '1',
  [],
  [1],
  {},
  { requested_ms: 1 },
];
const FIELDS = ['version', 'requested_ms', 'by', 'handled_ms'];
const EXTRAS = ['trigger', 'note', '__proto__', 'constructor'];

const GOOD = { version: 1, requested_ms: 1_900_000_000_000, by: 'w1:p2', handled_ms: null };
const ABSENT = Symbol('absent');

/**
 * Every value in every field, alone and in every pair of fields, each field also missing, then
 * fields a newer dogsled may add and `__proto__`, in several orders; and every value as the whole
 * file. Through JSON, as a file is read (so `__proto__` is an own key).
 */
function* records(): Generator<unknown> {
  yield* VALUES;
  const choices = [...VALUES, ABSENT];
  const build = (changes: Array<[string, unknown]>, extras: Array<[string, unknown]> = [], turn = 0) => {
    const fields: Array<[string, unknown]> = [...Object.entries(GOOD), ...extras];
    for (const [key, value] of changes) {
      const at = fields.findIndex(([name]) => name === key);
      if (value === ABSENT) fields.splice(at, 1);
      else fields[at] = [key, value];
    }
    const turned = [...fields.slice(turn % fields.length), ...fields.slice(0, turn % fields.length)];
    const text = `{${turned.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
    return JSON.parse(text) as unknown;
  };
  for (const [i, a] of FIELDS.entries()) {
    for (const x of choices) {
      yield build([[a, x]]);
      for (const b of FIELDS.slice(i + 1))
        for (const y of choices)
          yield build([
            [a, x],
            [b, y],
          ]);
    }
  }
  for (const [n, extra] of EXTRAS.entries()) {
    for (const value of VALUES) {
      yield build([], [[extra, value]], n);
      yield build(
        [['requested_ms', value]],
        [
          [extra, 'x'],
          ['version', 1],
        ],
        n + 1,
      );
    }
  }
}

function verdict(result: ReturnType<typeof SweepRequestCheck.safeParse> | { success: boolean }) {
  if ('data' in result && result.success) {
    return { ok: true, text: JSON.stringify(result.data), keys: Object.keys(result.data as object) };
  }
  const issue = (result as { error: { issues: Array<{ path: PropertyKey[]; message: string }> } }).error
    .issues[0];
  return { ok: false, path: issue?.path.map(String), message: issue?.message };
}

describe('SweepRequestCheck', () => {
  it('judges as SweepRequestSchema does and gives the same data back, field order included', () => {
    let accepted = 0;
    for (const record of records()) {
      const hand = verdict(SweepRequestCheck.safeParse(record));
      const zod = verdict(SweepRequestSchema.safeParse(record));
      expect({ record, ...hand }).toEqual({ record, ...zod });
      if (hand.ok) accepted += 1;
    }
    // Both kinds of verdict were exercised.
    expect(accepted).toBeGreaterThan(100);
    expect(accepted).toBeLessThan(2_000);
  });

  it('keeps what a newer dogsled wrote after the known fields, never a __proto__', () => {
    const record = JSON.parse(
      '{"note":"x","__proto__":{"polluted":1},"handled_ms":null,"by":null,"requested_ms":5,"version":1}',
    );
    const result = SweepRequestCheck.safeParse(record);
    expect(result.success && JSON.stringify(result.data)).toBe(
      '{"version":1,"requested_ms":5,"by":null,"handled_ms":null,"note":"x"}',
    );
    expect(result.success && Object.getPrototypeOf(result.data)).toBe(Object.prototype);
  });
});
