// The state files checked by hand (service/state/checks: sweep-request.json, which every Stop hook
// writes, and placements.json, which the lean `place` writes) are judged exactly as their zod schemas
// judge them: on thousands of generated records (every kind of JSON value in every field, alone and
// in pairs, fields missing, fields a newer dogsled added, `__proto__`, in several orders), the same
// verdict, the same data back with its fields in the same order (what the store writes), and the
// same first issue (path and words: what a quarantine warning says).

import { describe, expect, it } from 'vitest';
import { PlacementsCheck } from '../../../service/state/checks/placements-check.js';
import { SweepRequestCheck } from '../../../service/state/checks/sweep-request-check.js';
import type { RecordCheck } from '../../../service/state/engine/record-check.js';
import { PlacementsSchema } from '../../../service/state/schemas/host-schemas.js';
import { SweepRequestSchema } from '../../../service/state/schemas/sweep-schemas.js';

/** Every kind of JSON value, and the numbers and strings at the edges of the checks. */
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
  { id: 'r_1', created_ms: 1, expires_ms: 2, owner: null },
];
const EXTRAS = ['trigger', 'note', '__proto__', 'constructor'];
const PAIRED: unknown[] = [null, true, 1.5, Number.MAX_SAFE_INTEGER + 2, '', 'x', [], {}];
const ABSENT = Symbol('absent');
PAIRED.push(ABSENT);
type Path = Array<string | number>;

/** Sets (or deletes) the field at `path`; a path through a value that is no object is left alone. */
function setAt(record: unknown, path: Path, value: unknown): void {
  let at: unknown = record;
  for (const key of path.slice(0, -1)) {
    if (typeof at !== 'object' || at === null) return;
    at = (at as Record<string | number, unknown>)[key];
  }
  if (typeof at !== 'object' || at === null) return;
  const last = path[path.length - 1] as string | number;
  if (value === ABSENT) delete (at as Record<string | number, unknown>)[last];
  else (at as Record<string | number, unknown>)[last] = value;
}

/** JSON text with the keys of every object turned by `turn` places: another order, same fields. */
function turned(value: unknown, turn: number): string {
  if (Array.isArray(value)) return `[${value.map((v) => turned(v, turn)).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const entries = Object.entries(value);
  const n = entries.length === 0 ? 0 : turn % entries.length;
  const order = [...entries.slice(n), ...entries.slice(0, n)];
  return `{${order.map(([k, v]) => `${JSON.stringify(k)}:${turned(v, turn)}`).join(',')}}`;
}

/** Every value at each path alone and in each pair of paths, plus extras where objects are. */
function* records(good: () => unknown, paths: Path[], objects: Path[]): Generator<unknown> {
  yield* VALUES;
  const choices = [...VALUES, ABSENT];
  const made = (changes: Array<[Path, unknown]>, turn: number) => {
    const record = good();
    for (const [path, value] of changes) setAt(record, path, value);
    // Through JSON, as a file is read: `__proto__` becomes an own key.
    return JSON.parse(turned(record, turn)) as unknown;
  };
  for (const [i, a] of paths.entries()) {
    for (const [n, x] of choices.entries()) {
      yield made([[a, x]], n);
      for (const b of paths.slice(i + 1))
        for (const y of choices)
          yield made(
            [
              [a, x],
              [b, y],
            ],
            n,
          );
    }
  }
  for (const object of objects) {
    for (const [n, extra] of EXTRAS.entries()) {
      for (const value of VALUES) yield made([[[...object, extra], value]], n);
    }
  }
}

function verdict(result: { success: boolean; data?: unknown; error?: unknown }) {
  if (result.success) {
    const data = result.data as object;
    return { ok: true, text: JSON.stringify(data), plain: Object.getPrototypeOf(data) === Object.prototype };
  }
  const issue = (result.error as { issues: Array<{ path: PropertyKey[]; message: string }> }).issues[0];
  return { ok: false, path: issue?.path.map(String), message: issue?.message };
}

function expectSame(check: RecordCheck, schema: RecordCheck, all: Iterable<unknown>): void {
  let accepted = 0;
  let count = 0;
  for (const record of all) {
    const hand = verdict(check.safeParse(record));
    const zod = verdict(schema.safeParse(record));
    // expect() only on a difference: it costs more than both checks.
    if (JSON.stringify(hand) !== JSON.stringify(zod)) expect({ record, ...hand }).toEqual({ record, ...zod });
    if (hand.ok) accepted += 1;
    count += 1;
  }
  // Both kinds of verdict were exercised.
  expect(accepted).toBeGreaterThan(50);
  expect(accepted).toBeLessThan(count - 500);
}

describe('hand checks judge as their zod schemas do', () => {
  it('sweep-request.json', () => {
    const good = () => ({ version: 1, requested_ms: 1_900_000_000_000, by: 'w1:p2', handled_ms: null });
    const paths: Path[] = [['version'], ['requested_ms'], ['by'], ['handled_ms']];
    expectSame(SweepRequestCheck, SweepRequestSchema, records(good, paths, [[]]));
  });

  it('placements.json', () => {
    const good = () => ({
      version: 1,
      reservations: [
        { id: 'r_aaaaaaaaaaaa', created_ms: 1_900_000_000_000, expires_ms: 1_900_000_090_000, owner: null },
        {
          id: 'r_bbbbbbbbbbbb',
          created_ms: 1_900_000_000_001,
          expires_ms: 1_900_000_090_001,
          owner: 'w1:p1',
        },
      ],
    });
    const fields = ['id', 'created_ms', 'expires_ms', 'owner'];
    const paths: Path[] = [
      ['version'],
      ['reservations'],
      ...fields.map((f) => ['reservations', 0, f]),
      ...fields.map((f) => ['reservations', 1, f]),
    ];
    expectSame(PlacementsCheck, PlacementsSchema, records(good, paths, [[], ['reservations', 1]]));
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
