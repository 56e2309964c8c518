// zod schemas of the board's and todos' state files: boards/<tab-hash>.json (the docked board of a
// Herdr tab), todo-lines/<pane-hash>.json (what Pi's pi-todo publishes for its pane, protocol v3)
// and todo-sections.json (the service's copy for live agent panes, read by peers and the sidebar).
// Objects are loose: fields a newer writer adds survive.

import * as z from 'zod/mini';
import { lazySchema } from '../engine/lazy-schema.js';
import '../engine/zod-messages.js';

const ms = lazySchema(() => z.int());

/** The board pane docked in one Herdr tab; `pane: null` once it was closed or found stale. */
export const BoardEntrySchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    tab: z.string().check(z.minLength(1)),
    pane: z.nullable(z.string()),
    terminal_id: z.nullable(z.string()),
    /** The owner pane the board shows. */
    owner: z.nullable(z.string()),
    updated_ms: ms,
  }),
);

/** One dismissal: the owner's row (kind and id) in the state it was in (since_ms) when seen. */
export const BoardSeenEntrySchema = lazySchema(() =>
  z.looseObject({
    owner: z.string(),
    kind: z.enum(['agent', 'job', 'ticket']),
    id: z.string().check(z.minLength(1)),
    since_ms: z.nullable(ms),
    seen_ms: ms,
  }),
);

/** board-seen.json: the ATTENTION rows owners dismissed (`board --dismiss`, the sidebar's `d`). */
export const BoardSeenSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    seen: z.array(BoardSeenEntrySchema),
  }),
);

/** One section of pi-todo's display: `progress`, `now`, `next`, `done`, `dropped`, or another kind. */
export const TodoSectionSchema = lazySchema(() =>
  z.looseObject({
    kind: z.string(),
    title: z.optional(z.string()),
    lines: z.optional(z.array(z.string())),
    /** `progress`: tasks done out of total. */
    done: z.optional(z.int().check(z.nonnegative())),
    total: z.optional(z.int().check(z.nonnegative())),
  }),
);

/** todo-lines/<pane-hash>.json, written atomically by the Pi extension (protocol v3). */
export const TodoLinesSchema = lazySchema(() =>
  z.looseObject({
    protocol: z.optional(z.literal(3)),
    session: z.string(),
    branch: z.nullable(z.string()),
    revision: z.int(),
    current: z.nullable(z.string()),
    pane: z.string(),
    sections: z.array(TodoSectionSchema),
  }),
);

/** One live agent pane's todos in todo-sections.json, or why they cannot be shown. */
export const PaneTodosSchema = lazySchema(() =>
  z.looseObject({
    pane: z.string(),
    terminal_id: z.nullable(z.string()),
    available: z.boolean(),
    /** Set when not available: `no presentation`, `not a regular file`, `published for pane w1:p3`... */
    reason: z.nullable(z.string()),
    session: z.nullable(z.string()),
    branch: z.nullable(z.string()),
    revision: z.nullable(z.int()),
    current: z.nullable(z.string()),
    sections: z.array(TodoSectionSchema),
  }),
);

export const TodoSectionsSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    updated_ms: ms,
    panes: z.array(PaneTodosSchema),
  }),
);

export type BoardEntry = z.infer<typeof BoardEntrySchema>;
export type TodoSection = z.infer<typeof TodoSectionSchema>;
export type TodoLines = z.infer<typeof TodoLinesSchema>;
export type PaneTodos = z.infer<typeof PaneTodosSchema>;
export type TodoSections = z.infer<typeof TodoSectionsSchema>;
export type BoardSeenEntry = z.infer<typeof BoardSeenEntrySchema>;
export type BoardSeenFile = z.infer<typeof BoardSeenSchema>;
