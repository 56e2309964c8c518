// zod schema of a receipt (core/receipts/receipt.ts) as items.json, history.jsonl and a peer's
// `host read` carry it. Loose, like every record: a newer dogsled's fields survive.

import * as z from 'zod/mini';
import type { ModelReceipt, Receipt } from '../../core/receipts/receipt.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import '../engine/zod-messages.js';

const count = lazySchema(() => z.int().check(z.nonnegative()));
const usd = lazySchema(() => z.nullable(z.number().check(z.nonnegative())));

export const ModelReceiptSchema = lazySchema(() =>
  z.looseObject({
    model: z.string(),
    input: count,
    output: count,
    cache_read: count,
    cache_write: count,
    turns: count,
    usd,
  }),
);

export const ReceiptSchema = lazySchema(() =>
  z.looseObject({
    tokens: z.nullable(count),
    usd,
    turns: z.nullable(count),
    model: z.nullable(z.string()),
    models: z.array(ModelReceiptSchema),
    prices_as_of: z.nullable(z.string()),
    wall_ms: z.nullable(z.int()),
  }),
);

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type ReceiptSchemasMatch = [
  Check<Matches<typeof ModelReceiptSchema, ModelReceipt>>,
  Check<Matches<typeof ReceiptSchema, Receipt>>,
];
