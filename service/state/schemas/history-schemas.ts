// zod schema of one history.jsonl line (core/history/history-entry.ts). Loose: a newer dogsled's
// fields survive; a line that does not parse is skipped with a warning by its reader.

import * as z from 'zod/mini';
import type { HistoryEntry } from '../../core/history/history-entry.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import '../engine/zod-messages.js';
import { ReceiptSchema } from './receipt-schemas.js';

const text = lazySchema(() => z.nullable(z.string()));
const ms = lazySchema(() => z.int());

export const HistoryEntrySchema = lazySchema(() =>
  z.looseObject({
    v: z.literal(1),
    id: z.string().check(z.minLength(1)),
    kind: z.enum(['agent', 'job']),
    host: z.string(),
    owner: text,
    name: z.string(),
    harness: text,
    model: text,
    branch: text,
    summary: text,
    outcome: z.string(),
    ok: z.boolean(),
    started_ms: ms,
    ended_ms: ms,
    duration_ms: z.int().check(z.nonnegative()),
    receipt: z.nullable(ReceiptSchema),
  }),
);

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type HistorySchemasMatch = [Check<Matches<typeof HistoryEntrySchema, HistoryEntry>>];
