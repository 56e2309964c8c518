// The zod schema of `board --json` (and of the board inside the sidebar): the contract for the Pi
// widget and scripts, validated in tests. Only tests and tools import this module at run time.

import * as z from 'zod/mini';
import { BOARD_GROUPS } from '../core/board/board-rule.js';
import { lazySchema } from '../state/engine/lazy-schema.js';

const nullableText = lazySchema(() => z.nullable(z.string()));

export const BoardRowSchema = lazySchema(() =>
  z.strictObject({
    kind: z.enum(['agent', 'job', 'ticket']),
    id: z.string(),
    host: nullableText,
    pane: nullableText,
    title: z.string(),
    detail: nullableText,
    state: z.string(),
    since_ms: z.nullable(z.int()),
    age_ms: z.nullable(z.int().check(z.nonnegative())),
    reason: nullableText,
    place: z.nullable(z.int().check(z.positive())),
    item: nullableText,
    job: nullableText,
    ticket: nullableText,
    group: z.enum(BOARD_GROUPS),
    seen_ms: z.nullable(z.int()),
  }),
);

export const BoardSchema = lazySchema(() =>
  z.strictObject({
    version: z.literal(1),
    owner: z.string(),
    now_ms: z.int(),
    groups: z.array(
      z.strictObject({
        id: z.enum(BOARD_GROUPS),
        title: z.string(),
        rows: z.array(BoardRowSchema),
      }),
    ),
  }),
);

/** `board --open|--toggle --json`. */
export const DockResultSchema = lazySchema(() =>
  z.strictObject({
    action: z.enum(['opened', 'reused', 'closed']),
    tab: z.string(),
    pane: z.string(),
    terminal_id: z.string(),
    ratio: z.nullable(z.number()),
    stale: nullableText,
  }),
);
