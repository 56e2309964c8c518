// tsc's check that a state file's zod schema reads exactly the record the core defines: the core
// owns the types its rules work on (service/core, beside each rule), and the storage layer proves
// its schemas agree, field for field, at compile time. A field the schema adds or lacks, or one of
// another type or optionality, fails `npm run check` at the schema's `Check<Matches<…>>` line.

import type { output, ZodMiniType } from 'zod/mini';

/**
 * The fields a record names, recursively: a loose object's `[key: string]: unknown` (what keeps a
 * newer dogsled's fields through a read-modify-write) is dropped, and arrays read as mutable.
 */
type Fields<T> = T extends readonly (infer E)[]
  ? Fields<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? (unknown extends T[K] ? never : K) : K]: Fields<T[K]> }
    : T;

/** Whether A and B are the same type (not only assignable to each other). */
type Same<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

/** What differs between a schema's fields (A) and the core's (B), by top-level field name. */
type Drift<A, B> = {
  only_in_schema: Exclude<keyof A, keyof B>;
  only_in_core: Exclude<keyof B, keyof A>;
  differ: { [K in keyof A & keyof B]-?: Same<A[K], B[K]> extends true ? never : K }[keyof A & keyof B];
  optional_differs: Exclude<OptionalKeys<A>, OptionalKeys<B>> | Exclude<OptionalKeys<B>, OptionalKeys<A>>;
} extends infer D
  ? { [K in keyof D]: D[K] }
  : never;

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/** `true` when schema S parses to the core's record T field for field; otherwise what differs. */
export type Matches<S extends ZodMiniType, T> =
  Same<Fields<output<S>>, Fields<T>> extends true ? true : Drift<Fields<output<S>>, Fields<T>>;

/** Accepts only `true`: `Check<Matches<typeof XSchema, X>>` fails tsc when they drift. */
export type Check<T extends true> = T;
