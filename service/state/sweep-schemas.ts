// zod schemas of the sweep's files: sweep-request.json (a durable request for one cleanup pass,
// written by the stop gate), sweep.json (the latest requested pass) and sweeps.jsonl (one completed
// pass a line, seven days by ts_ms). Objects are loose, so newer fields survive.

import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';
import './zod-messages.js';

const ms = lazySchema(() => z.int());

export const SweepRequestSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    /** The latest request; a pass is owed while it is newer than `handled_ms`. */
    requested_ms: ms,
    /** The pane that asked last (the stop gate's owner), or null. */
    by: z.nullable(z.string()),
    /** The request the last completed pass answered. */
    handled_ms: z.nullable(ms),
  }),
);

const EntryKind = lazySchema(() => z.string());

/** An orphaned child the service keeps open. */
export const OrphanHoldSchema = lazySchema(() =>
  z.looseObject({
    item: z.string(),
    name: z.nullable(z.string()),
    pane: z.nullable(z.string()),
    path: z.nullable(z.string()),
    reason: z.string(),
  }),
);

export const SweepPassSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    /** When the pass completed: sweeps.jsonl keeps seven days by it. */
    ts_ms: ms,
    started_ms: ms,
    finished_ms: ms,
    /** The request it answered; null for a pass of the orphan check, which runs without one. */
    request_ms: z.nullable(ms),
    /** `request` (a requested cleanup pass; absent in older files) or `orphans` (the orphan check). */
    trigger: z.optional(z.enum(['request', 'orphans'])),
    results: z.array(
      z.looseObject({
        kind: EntryKind,
        path: z.string(),
        branch: z.nullable(z.string()),
        branch_deleted: z.boolean(),
        panes: z.array(z.string()),
        already_removed: z.boolean(),
        detail: z.string(),
      }),
    ),
    skipped: z.array(
      z.looseObject({
        kind: EntryKind,
        path: z.string(),
        branch: z.nullable(z.string()),
        reason: z.string(),
      }),
    ),
    failures: z.array(
      z.looseObject({ kind: EntryKind, path: z.string(), branch: z.nullable(z.string()), error: z.string() }),
    ),
    /** Repository warnings (a failed fetch…) and the survey's own warnings. */
    warnings: z.array(z.string()),
    landed_dirty: z.array(
      z.looseObject({
        repository: z.string(),
        checkout: z.string(),
        ref: z.string(),
        dirty: z.int(),
        paths: z.array(z.string()),
      }),
    ),
    unlinked: z.array(z.looseObject({ repository: z.string(), path: z.string(), reason: z.string() })),
    /** Orphaned children kept open (core/orphans.ts), with why; absent in older files. */
    orphans: z.optional(z.array(OrphanHoldSchema)),
    /** Set when the pass could not survey at all (then the lists are empty). */
    error: z.nullable(z.string()),
  }),
);

export type SweepRequest = z.infer<typeof SweepRequestSchema>;
export type SweepPass = z.infer<typeof SweepPassSchema>;
export type OrphanHold = z.infer<typeof OrphanHoldSchema>;
