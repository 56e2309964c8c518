// zod schemas of quota.json (the version-1 quota contract: what a collector writes, pushes to its
// peers and what `quota --json` prints) and quota-collect.json (this host's collection backoff).
// Objects are loose: a newer collector's extra fields survive. Text fields and the row count are
// bounded, so a pushed snapshot can never grow a state file without limit.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import { type QuotaRow, type QuotaSnapshot, TEXT_LIMITS } from '../../core/quota/quota-rows.js';
import type { QuotaCollect } from '../../core/quota/quota-rules.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import '../engine/zod-messages.js';

/** Far above any real fleet's accounts × windows. */
export const MAX_QUOTA_ROWS = 5_000;

const unixMs = lazySchema(() => z.int().check(z.nonnegative()));
const text = (max: number) => z.string().check(z.maxLength(max));

export const QuotaRowSchema = lazySchema(() =>
  z.looseObject({
    pool: text(TEXT_LIMITS.pool).check(z.minLength(1)),
    account: text(TEXT_LIMITS.account),
    window: text(TEXT_LIMITS.window).check(z.minLength(1)),
    used_pct: z.number().check(z.minimum(0), z.maximum(100)),
    resets_ms: z.nullable(unixMs),
    error: z.nullable(text(TEXT_LIMITS.error)),
  }),
);

export const QuotaSnapshotSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    fetched_ms: unixMs,
    source: text(TEXT_LIMITS.source),
    pools: z.array(QuotaRowSchema).check(z.maxLength(MAX_QUOTA_ROWS)),
  }),
);

/** This host's collection attempts: failures in a row back off (core/backoff.ts). */
export const QuotaCollectSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    /** Failed collections in a row; 0 after a success. */
    failures: z.int().check(z.nonnegative()),
    /** Why the last one failed (one safe line), or null. */
    last_error: z.nullable(z.string()),
    last_attempt_ms: unixMs,
    /** No automatic collection before this; --refresh ignores it. */
    retry_at_ms: unixMs,
  }),
);

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type QuotaSchemasMatch = [
  Check<Matches<typeof QuotaRowSchema, QuotaRow>>,
  Check<Matches<typeof QuotaSnapshotSchema, QuotaSnapshot>>,
  Check<Matches<typeof QuotaCollectSchema, QuotaCollect>>,
];
