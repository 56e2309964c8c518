// zod schema of outbox.json: what children here have for owners on other hosts (service/core/inbox/outbox-rule.ts),
// kept until each owner's service takes it. Objects are loose, so fields written by a newer dogsled
// survive a read-modify-write by this one.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import type { BranchSeen, Identity, Notices, Outbox, OutboxRecord } from '../../core/inbox/outbox-types.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import { InboxRecordSchema } from './inbox-schemas.js';
import '../engine/zod-messages.js';

const ms = lazySchema(() => z.int());
const id = lazySchema(() => z.string().check(z.minLength(1)));

/** A branch as this host's service last saw it (branches.json), for the owner's TO LAND. */
export const BranchSeenSchema = lazySchema(() =>
  z.looseObject({
    ahead: z.int(),
    dirty: z.boolean(),
    landed: z.boolean(),
    observed_ms: ms,
  }),
);

export const OutboxRecordSchema = lazySchema(() =>
  z.looseObject({
    id,
    /** The owner's host identity (its identity.json): only that host's service claims the record. */
    owner_host: id,
    /** The owner's item (the same id on both hosts). */
    item: id,
    /** Posted once per ref: `reply:<item>`, `blocked:<item>:<since>`, `closed:<item>`, `branch:<item>:…`. */
    ref: id,
    created_ms: ms,
    attempts: z.int().check(z.nonnegative()),
    /** While claimed: when the lease ends and the record is offered again. */
    lease_until_ms: z.nullable(ms),
    /** A message for the owner's pane: the inbox record to write there (its ref dedupes it). */
    message: z.optional(z.nullable(z.looseObject({ owner_pane: id, record: InboxRecordSchema }))),
    /** The child's item closed here: the owner's item closes with this reason and reply. */
    closed: z.optional(z.nullable(z.looseObject({ reason: z.string(), reply: z.nullable(z.string()) }))),
    /** What this host's service saw of the child's branch. */
    branch: z.optional(z.nullable(BranchSeenSchema)),
  }),
);

export const OutboxSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    records: z.array(OutboxRecordSchema),
  }),
);

/** identity.json: this host's identity as an owner, made once and never changed. */
export const IdentitySchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    id,
    created_ms: ms,
  }),
);

/**
 * notices.json: the peers a sender on this host messaged (`send --host`), each until when this
 * host's service takes what waits for it in that peer's outbox (a child's `<name> finished`).
 */
export const NoticesSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    peers: z.array(z.looseObject({ host: id, until_ms: ms })),
  }),
);

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type OutboxSchemasMatch = [
  Check<Matches<typeof BranchSeenSchema, BranchSeen>>,
  Check<Matches<typeof OutboxRecordSchema, OutboxRecord>>,
  Check<Matches<typeof OutboxSchema, Outbox>>,
  Check<Matches<typeof IdentitySchema, Identity>>,
  Check<Matches<typeof NoticesSchema, Notices>>,
];
