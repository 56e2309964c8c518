// sweep-request.json checked by hand (engine/record-check.ts): the stop gate writes it on every Stop
// of every agent, and the lean hook (actions/hook-glance.ts) writes it without loading zod. Judges
// exactly as SweepRequestSchema (state/schemas/sweep-schemas.ts) does and gives the same data back:
// the four fields in the schema's order, then any a newer dogsled wrote; the unit test
// sweep-request-check.test.ts holds the two together.

import type { SweepRequest } from '../../core/cleanup/sweep-types.js';
import { isRecord, kindOf } from '../../core/common/shape.js';
import type { CheckIssue, CheckResult, RecordCheck } from '../engine/record-check.js';

const FIELDS = ['version', 'requested_ms', 'by', 'handled_ms'] as const;
const SAFE = Number.MAX_SAFE_INTEGER;

/** zod's words for a field that is not an int (`z.int()`), or undefined when it is one. */
function intProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return `Invalid input: expected number, received ${kindOf(value)}`;
  }
  if (!Number.isInteger(value)) return 'Invalid input: expected int, received number';
  if (value > SAFE) return `Too big: expected int to be <=${SAFE}`;
  if (value < -SAFE) return `Too small: expected int to be >=-${SAFE}`;
  return undefined;
}

function fieldProblem(field: (typeof FIELDS)[number], value: unknown): string | undefined {
  switch (field) {
    case 'version':
      return value === 1 ? undefined : 'Invalid input: expected 1';
    case 'requested_ms':
      return intProblem(value);
    case 'by':
      return value === null || typeof value === 'string'
        ? undefined
        : `Invalid input: expected string, received ${kindOf(value)}`;
    case 'handled_ms':
      return value === null ? undefined : intProblem(value);
  }
}

export const SweepRequestCheck: RecordCheck<SweepRequest> = {
  safeParse(value: unknown): CheckResult<SweepRequest> {
    if (!isRecord(value)) {
      return {
        success: false,
        error: {
          issues: [{ path: [], message: `Invalid input: expected object, received ${kindOf(value)}` }],
        },
      };
    }
    const issues: CheckIssue[] = [];
    const data: Record<string, unknown> = {};
    for (const field of FIELDS) {
      const problem = fieldProblem(field, value[field]);
      if (problem === undefined) data[field] = value[field];
      else issues.push({ path: [field], message: problem });
    }
    if (issues.length > 0) return { success: false, error: { issues } };
    // A loose object: the other fields follow, as zod copies them (never a `__proto__`).
    for (const key in value) {
      if (!(FIELDS as readonly string[]).includes(key) && key !== '__proto__') data[key] = value[key];
    }
    return { success: true, data: data as SweepRequest };
  },
};
