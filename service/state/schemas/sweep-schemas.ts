// zod schemas of the sweep's files: sweep-request.json (a durable request for one cleanup pass,
// written by the stop gate), sweep.json (the latest requested pass) and sweeps.jsonl (one completed
// pass a line, seven days by ts_ms). Objects are loose, so newer fields survive. A pass holds prune's
// entries and doctor's findings: their fields are built here, once, for cleanup/report.ts too.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import type { OrphanHold, SweepPass, SweepRequest } from '../../core/cleanup/sweep-types.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import '../engine/zod-messages.js';

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

/** A pass a newer build wrote keeps its entries' kinds: here any string, in the report its enum. */
const EntryKind = lazySchema(() => z.string());

/**
 * The fields of a prune's results, skips and failures: `prune --json` prints them
 * (cleanup/report.ts, with its enum of kinds) and sweeps.jsonl keeps them (any kind).
 */
export function pruneEntryFields<K extends z.ZodMiniType>(kind: K) {
  return {
    result: {
      kind,
      /** The removed path (for a branch, its repository; for a pane or workspace, its id). */
      path: z.string(),
      branch: z.nullable(z.string()),
      branch_deleted: z.boolean(),
      /** Herdr panes closed: with the worktree, or the pane or workspace entry's own. */
      panes: z.array(z.string()),
      /** Something else had already removed it; only its registration went. */
      already_removed: z.boolean(),
      detail: z.string(),
    },
    skip: { kind, path: z.string(), branch: z.nullable(z.string()), reason: z.string() },
    failure: { kind, path: z.string(), branch: z.nullable(z.string()), error: z.string() },
  };
}

/** A landed branch's checkout with uncommitted changes: doctor's finding, a sweep pass's too. */
export function landedDirtyFields() {
  return {
    repository: z.string(),
    checkout: z.string(),
    ref: z.string(),
    dirty: z.int(),
    paths: z.array(z.string()),
  };
}

/** A worktree its repository no longer lists: doctor's finding, a sweep pass's too. */
export function unlinkedFields() {
  return { repository: z.string(), path: z.string(), reason: z.string() };
}

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

export const SweepPassSchema = lazySchema(() => {
  const entries = pruneEntryFields(EntryKind);
  return z.looseObject({
    version: z.literal(1),
    /** When the pass completed: sweeps.jsonl keeps seven days by it. */
    ts_ms: ms,
    started_ms: ms,
    finished_ms: ms,
    /** The request it answered; null for a pass of the orphan check, which runs without one. */
    request_ms: z.nullable(ms),
    /** `request` (a requested cleanup pass; absent in older files) or `orphans` (the orphan check). */
    trigger: z.optional(z.enum(['request', 'orphans'])),
    results: z.array(z.looseObject(entries.result)),
    skipped: z.array(z.looseObject(entries.skip)),
    failures: z.array(z.looseObject(entries.failure)),
    /** Repository warnings (a failed fetch…) and the survey's own warnings. */
    warnings: z.array(z.string()),
    landed_dirty: z.array(z.looseObject(landedDirtyFields())),
    unlinked: z.array(z.looseObject(unlinkedFields())),
    /** Orphaned children kept open (core/orphans.ts), with why; absent in older files. */
    orphans: z.optional(z.array(OrphanHoldSchema)),
    /** Set when the pass could not survey at all (then the lists are empty). */
    error: z.nullable(z.string()),
  });
});

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type SweepSchemasMatch = [
  Check<Matches<typeof SweepRequestSchema, SweepRequest>>,
  Check<Matches<typeof OrphanHoldSchema, OrphanHold>>,
  Check<Matches<typeof SweepPassSchema, SweepPass>>,
];
