// The messages of the `dogsled host rpc` channel (frames.ts carries them). The server speaks first
// with a hello; then each request carries an id, a verb, its arguments and optional input bytes, and
// each reply the same id with the verb's value or its refusal and the exit status a one-shot
// `dogsled host <verb>` would have had. Requests may overlap; replies come in any order. While any
// request runs the server also sends `{ t: 'beat' }` each second, which carries nothing but life.

import * as z from 'zod/mini';
import { lazySchema } from '../state/engine/lazy-schema.js';

export const WIRE_VERSION = 1;

export const HelloSchema = lazySchema(() =>
  z.looseObject({
    t: z.literal('hello'),
    wire: z.int(),
    version: z.string(),
    verbs: z.array(z.string()),
  }),
);

export const RequestSchema = lazySchema(() =>
  z.looseObject({
    t: z.literal('req'),
    id: z.int().check(z.nonnegative()),
    verb: z.string(),
    args: z.array(z.string()),
    input: z.optional(z.instanceof(Uint8Array)),
  }),
);

export const ReplySchema = lazySchema(() =>
  z.union([
    z.looseObject({
      t: z.literal('res'),
      id: z.int(),
      ok: z.literal(true),
      value: z.unknown(),
      code: z.int(),
    }),
    z.looseObject({
      t: z.literal('res'),
      id: z.int(),
      ok: z.literal(false),
      error: z.string(),
      code: z.int(),
    }),
  ]),
);

/** Sent instead of replies when the server cannot go on (a request it cannot read); then it exits. */
export const FatalSchema = lazySchema(() => z.looseObject({ t: z.literal('fatal'), error: z.string() }));

export type Hello = z.infer<typeof HelloSchema>;
export type Request = z.infer<typeof RequestSchema>;
export type Reply = z.infer<typeof ReplySchema>;
