// done.json: the marks children leave with `dogsled done` (spec, "Items and closing"), keyed by the
// launch or item id, the pane and the agent's session, never by the terminal id alone. A mark is
// `marked` during the child's final working turn; the service's first idle or done observation after
// it ends the turn (`ended`), and the service then captures the reply and closes the child
// (`closed`). Changes only under the file's lock; lock order in lock.ts.

import * as z from 'zod/mini';
import { lazySchema } from '../engine/lazy-schema.js';
import { readState, updateState } from '../engine/store.js';
import type { StateIO } from '../io.js';
import '../engine/zod-messages.js';

const ms = lazySchema(() => z.int());

export const DONE_STATES = ['marked', 'ended', 'closed'] as const;

export const DoneMarkSchema = lazySchema(() =>
  z.looseObject({
    /** The launch id when dogsled launched the child, else its item id. */
    id: z.string().check(z.minLength(1)),
    item: z.nullable(z.string()),
    launch: z.nullable(z.string()),
    pane: z.string(),
    terminal_id: z.nullable(z.string()),
    /** Herdr's agent_session.value at the mark: a restored or replaced agent is not the one that marked. */
    agent_session: z.nullable(z.string()),
    /** Herdr's state_change_seq at the mark, when it was known. */
    seq: z.nullable(z.number()),
    marked_ms: ms,
    state: z.enum(DONE_STATES),
    state_ms: ms,
    /** Why closing failed last (kept open for the next pass), else null. */
    error: z.optional(z.nullable(z.string())),
  }),
);

export const DoneFileSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    marks: z.array(DoneMarkSchema),
  }),
);

export type DoneMark = z.infer<typeof DoneMarkSchema>;
export type DoneFile = z.infer<typeof DoneFileSchema>;
export const EMPTY_DONE: DoneFile = { version: 1, marks: [] };

export async function readDoneMarks(io: StateIO): Promise<DoneFile> {
  return (await readState(io.paths.done, DoneFileSchema, io)) ?? EMPTY_DONE;
}

export async function updateDoneMarks<R>(
  io: StateIO,
  fn: (file: DoneFile) => Promise<{ result: R; next?: DoneFile }> | { result: R; next?: DoneFile },
): Promise<R> {
  return updateState(io.paths.done, DoneFileSchema, io, (current) => fn(current ?? EMPTY_DONE));
}
