// The few checks a state file's record is built from when it is checked by hand (record-check.ts):
// each judges a value as the zod schema of the same shape does (`z.looseObject`, `z.array` with a
// minimum length, `z.int()` and `z.number()` with a lower bound, `z.boolean()`, `z.enum`,
// `z.literal(1)`, `z.string()` with a minimum length, `z.nullable`, `z.optional`), reports its issues
// in zod's order and words, and gives back zod's data (a loose object's known fields in the
// schema's order, then the others, never `__proto__`). Only what the hand-checked files use.

import { kindOf } from '../../core/common/shape.js';
import type { CheckIssue, CheckResult, RecordCheck } from '../engine/record-check.js';

/**
 * Judges `value` at `path`: its data, or undefined after pushing its issues. `path` is one stack
 * shared by the whole check (a container pushes a key around each entry's judge and pops it): a
 * judge that records an issue copies it (`fail` does); one that keeps it must too. A copy per field
 * judged was most of the garbage of the service's every-tick listing check.
 */
export type Judge = (value: unknown, path: PropertyKey[], issues: CheckIssue[]) => unknown;

const SAFE = Number.MAX_SAFE_INTEGER;

function fail(issues: CheckIssue[], path: PropertyKey[], message: string): undefined {
  issues.push({ path: [...path], message });
  return undefined;
}

/** `judge` of `value` at `path` + `key`, on the shared stack (a judge never throws). */
function judgeAt(judge: Judge, value: unknown, path: PropertyKey[], key: PropertyKey, issues: CheckIssue[]) {
  path.push(key);
  const judged = judge(value, path, issues);
  path.pop();
  return judged;
}

export const int: Judge = (value, path, issues) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return fail(issues, path, `Invalid input: expected number, received ${kindOf(value)}`);
  }
  if (!Number.isInteger(value)) return fail(issues, path, 'Invalid input: expected int, received number');
  if (value > SAFE) return fail(issues, path, `Too big: expected int to be <=${SAFE}`);
  if (value < -SAFE) return fail(issues, path, `Too small: expected int to be >=-${SAFE}`);
  return value;
};

/** `z.int()`, with `z.nonnegative()` (`>=0`) or `z.positive()` (`>0`) when `bound` says. */
export function intAtLeast(bound: '>=0' | '>0'): Judge {
  return (value, path, issues) => {
    if (int(value, path, issues) === undefined) return undefined;
    return atLeast(value as number, bound, path, issues);
  };
}

/** `z.number()`, with `z.nonnegative()` when `bound` is given, and `z.maximum(max)` when `max` is. */
export function number(bound?: '>=0', max?: number): Judge {
  return (value, path, issues) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return fail(issues, path, `Invalid input: expected number, received ${kindOf(value)}`);
    }
    const before = issues.length;
    if (bound !== undefined) atLeast(value, bound, path, issues);
    if (max !== undefined && value > max) fail(issues, path, `Too big: expected number to be <=${max}`);
    return issues.length === before ? value : undefined;
  };
}

function atLeast(value: number, bound: '>=0' | '>0', path: PropertyKey[], issues: CheckIssue[]): unknown {
  const ok = bound === '>0' ? value > 0 : value >= 0;
  return ok ? value : fail(issues, path, `Too small: expected number to be ${bound}`);
}

export const boolean: Judge = (value, path, issues) =>
  typeof value === 'boolean'
    ? value
    : fail(issues, path, `Invalid input: expected boolean, received ${kindOf(value)}`);

/** `z.enum(values)`. */
export function oneOf(values: readonly string[]): Judge {
  const expected =
    values.length === 1
      ? `Invalid input: expected ${JSON.stringify(values[0])}`
      : `Invalid option: expected one of ${values.map((v) => JSON.stringify(v)).join('|')}`;
  return (value, path, issues) =>
    typeof value === 'string' && values.includes(value) ? value : fail(issues, path, expected);
}

export const versionOne: Judge = (value, path, issues) =>
  value === 1 ? value : fail(issues, path, 'Invalid input: expected 1');

/** `z.string()`, with `z.minLength(min)` when min is above 0. */
export function string(min = 0): Judge {
  return (value, path, issues) => {
    if (typeof value !== 'string') {
      return fail(issues, path, `Invalid input: expected string, received ${kindOf(value)}`);
    }
    if (value.length < min) {
      return fail(issues, path, `Too small: expected string to have >=${min} characters`);
    }
    return value;
  };
}

export function nullable(judge: Judge): Judge {
  return (value, path, issues) => (value === null ? null : judge(value, path, issues));
}

/** `z.optional`: an absent field stays absent in the data. */
export function optional(judge: Judge): Judge {
  return (value, path, issues) => (value === undefined ? undefined : judge(value, path, issues));
}

/** `z.array`, with `z.minLength(min)` when min is above 0. */
export function array(judge: Judge, min = 0): Judge {
  return (value, path, issues) => {
    if (!Array.isArray(value)) {
      return fail(issues, path, `Invalid input: expected array, received ${kindOf(value)}`);
    }
    const before = issues.length;
    const data = value.map((entry, i) => judgeAt(judge, entry, path, i, issues));
    // zod words a short list after its entries' issues.
    if (value.length < min) fail(issues, path, `Too small: expected array to have >=${min} items`);
    return issues.length === before ? data : undefined;
  };
}

export function looseObject(shape: Record<string, Judge>): Judge {
  const known = new Set(Object.keys(shape));
  // Listed once: an entries list (and its iterator) per object judged was garbage on every tick.
  const keys = Object.keys(shape);
  const judges = Object.values(shape);
  return (value, path, issues) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail(issues, path, `Invalid input: expected object, received ${kindOf(value)}`);
    }
    const input = value as Record<string, unknown>;
    const before = issues.length;
    const data: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const judged = judgeAt(judges[i] as Judge, input[key], path, key, issues);
      // An optional field that is absent stays absent, as zod leaves it.
      if (judged !== undefined || Object.hasOwn(input, key)) data[key] = judged;
    }
    if (issues.length > before) return undefined;
    for (const key in input) if (!known.has(key) && key !== '__proto__') data[key] = input[key];
    return data;
  };
}

/**
 * `z.record(z.string(), z.string())` for the plain case only: an object of string values whose keys
 * are its own enumerable strings, none `__proto__`. Anything else is refused, for its zod schema to
 * judge behind handFirst (a refusal here is not zod's wording).
 */
export const stringRecord: Judge = (value, path, issues) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(issues, path, `Invalid input: expected record, received ${kindOf(value)}`);
  }
  if (Object.getPrototypeOf(value) !== Object.prototype || Object.getOwnPropertySymbols(value).length > 0) {
    return fail(issues, path, 'Invalid input: not a plain record');
  }
  const data: Record<string, string> = {};
  for (const key of Object.keys(value)) {
    const entry = (value as Record<string, unknown>)[key];
    if (key === '__proto__' || typeof entry !== 'string')
      return fail(issues, [...path, key], 'Invalid input');
    data[key] = entry;
  }
  return data;
};

/** A record check (the store's contract) from the judge of its whole record. */
export function handCheck<T>(judge: Judge): RecordCheck<T> {
  return {
    safeParse(value: unknown): CheckResult<T> {
      const issues: CheckIssue[] = [];
      const data = judge(value, [], issues);
      return issues.length > 0 ? { success: false, error: { issues } } : { success: true, data: data as T };
    },
  };
}
