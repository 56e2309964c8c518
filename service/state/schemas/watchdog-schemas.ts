// zod schemas of the watchdog's files: watchdog.json (the service's locked memory of check-ins,
// job-completion events and stall notifications) and parents.json (the tracked children on this
// host and their owners, written by the agent work, read here). Objects are loose, so fields written
// by a newer dogsled survive a read-modify-write by this one.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import type {
  JobEventRecord,
  ParentLink,
  Parents,
  PendingCheckIn,
  WatchdogOwner,
  WatchdogState,
} from '../../core/agents/watchdog-types.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import '../engine/zod-messages.js';

const ms = lazySchema(() => z.int());
const id = lazySchema(() => z.string().check(z.minLength(1)));

/** A check-in decided and recorded before it is posted, so a restart posts the same one (by ref). */
export const PendingCheckInSchema = lazySchema(() =>
  z.looseObject({
    /** The inbox record's ref: `check_in:<id>`; appendRecord never posts one ref twice. */
    ref: id,
    terminal: id,
    pane: z.nullable(z.string()),
    text: z.string(),
    decided_ms: ms,
    stalls: z.record(z.string(), ms),
    jobs: z.array(z.string()),
  }),
);

export const WatchdogOwnerSchema = lazySchema(() =>
  z.looseObject({
    last_check_in_ms: z.nullable(ms),
    /** The latest lifecycle event the watchdog saw itself (a job of this owner ended). */
    last_event_ms: z.nullable(ms),
    /** Stall episodes already reported, by item: the episode's start. */
    stalls: z.record(z.string(), ms),
    pending: z.nullable(PendingCheckInSchema),
  }),
);

export const JobEventSchema = lazySchema(() =>
  z.looseObject({
    owner: id,
    command: z.array(z.string()),
    ended_ms: ms,
    exit_code: z.nullable(z.int()),
    signal: z.nullable(z.string()),
    reason: z.nullable(z.string()),
    log: z.array(z.string()),
    seen_ms: ms,
    /** Set when a check-in carrying it was posted. */
    delivered_ms: z.nullable(ms),
  }),
);

export const WatchdogSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    /** When this memory began: jobs that ended before it are not events (no flood on a first start). */
    since_ms: ms,
    /** Keyed by the owner's pane. */
    owners: z.record(z.string(), WatchdogOwnerSchema),
    /** Job-completion events, keyed by job id; they outlive the job's item. */
    events: z.record(z.string(), JobEventSchema),
    /** Stall episodes of top-level panes already notified: terminal id -> the episode's start. */
    notified: z.record(z.string(), ms),
  }),
);

/**
 * One tracked child on this host whose owner is on another host (parents.json, written when `host
 * agent` launches it here, dropped once its close was forwarded to the owner).
 */
export const ParentLinkSchema = lazySchema(() =>
  z.looseObject({
    /** The owner's pane on its host (null: the owner ran outside Herdr and tmux). */
    owner: z.nullable(z.string()),
    /** The owner's host identity (identity.json there): its messages wait in outbox.json here. */
    owner_host: id,
    /** The child's item here, and its pane when it was launched. */
    item: z.optional(z.nullable(z.string())),
    pane: z.optional(z.nullable(z.string())),
    linked_ms: z.optional(ms),
  }),
);

export const ParentsSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    /** Keyed by the child's Herdr terminal id. */
    children: z.record(z.string(), ParentLinkSchema),
  }),
);

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type WatchdogSchemasMatch = [
  Check<Matches<typeof PendingCheckInSchema, PendingCheckIn>>,
  Check<Matches<typeof WatchdogOwnerSchema, WatchdogOwner>>,
  Check<Matches<typeof JobEventSchema, JobEventRecord>>,
  Check<Matches<typeof WatchdogSchema, WatchdogState>>,
  Check<Matches<typeof ParentLinkSchema, ParentLink>>,
  Check<Matches<typeof ParentsSchema, Parents>>,
];
