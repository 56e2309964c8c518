// zod schemas of the board's and todos' state files: boards/<tab-hash>.json (the docked board of a
// Herdr tab), todo-lines/<pane-hash>.json (what Pi's pi-todo publishes for its pane, protocol v3)
// and todo-sections.json (the service's copy for live agent panes, read by peers and the sidebar).
// Objects are loose: fields a newer writer adds survive.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import type {
  BoardEntry,
  BoardSeenEntry,
  BoardSeenFile,
  PaneTodos,
  TodoLines,
  TodoSection,
  TodoSections,
} from '../../core/board/board-types.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
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

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type SidebarSchemasMatch = [
  Check<Matches<typeof BoardEntrySchema, BoardEntry>>,
  Check<Matches<typeof TodoSectionSchema, TodoSection>>,
  Check<Matches<typeof TodoLinesSchema, TodoLines>>,
  Check<Matches<typeof PaneTodosSchema, PaneTodos>>,
  Check<Matches<typeof TodoSectionsSchema, TodoSections>>,
  Check<Matches<typeof BoardSeenEntrySchema, BoardSeenEntry>>,
  Check<Matches<typeof BoardSeenSchema, BoardSeenFile>>,
];
