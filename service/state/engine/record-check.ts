// What the store (store.ts) checks a state file's record with: a zod schema, or a check written by
// hand with the same contract (`safeParse`), for a file a hook writes on every stop, where loading
// and building zod would be most of the hook's time. A hand check must judge exactly as its file's
// zod schema does, and give the same data back (a loose object's fields in the schema's order, then
// the others): a unit test holds each one to its schema on generated records.

import type * as z from 'zod/mini';

export interface CheckIssue {
  path: PropertyKey[];
  message: string;
}

export type CheckResult<T> = { success: true; data: T } | { success: false; error: { issues: CheckIssue[] } };

export interface RecordCheck<T = unknown> {
  safeParse(value: unknown): CheckResult<T>;
}

/** The record a check reads (a zod schema's output). */
export type Checked<S> = S extends z.ZodMiniType ? z.output<S> : S extends RecordCheck<infer T> ? T : never;
/** What a check accepts to write (a zod schema's input). */
export type CheckInput<S> = S extends z.ZodMiniType ? z.input<S> : Checked<S>;

/**
 * `hand` first, `schema` only for a record it refuses: a read whose record passes never builds the
 * schema, and one it refuses is judged, quarantined and warned of exactly as the schema alone would
 * (the hand check is held equal to the schema by hand-checks.test.ts, so a pass gives the same data).
 */
export function handFirst<T>(hand: RecordCheck<T>, schema: RecordCheck<T>): RecordCheck<T> {
  return {
    safeParse(value) {
      const judged = hand.safeParse(value);
      return judged.success ? judged : schema.safeParse(value);
    },
  };
}
