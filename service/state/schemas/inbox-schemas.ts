// zod schemas of the message layer's files: inbox/<terminal>.json (one per Herdr terminal: its reader
// and the records that wait), inbox/<terminal>.d/settled.json (what was delivered or failed) and
// gate.json (the stop gate's once-per-set history per owner). Objects are loose, so fields written
// by a newer dogsled survive a read-modify-write by this one.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import {
  type Gate,
  type GateOwner,
  INBOX_STATES,
  type Inbox,
  type InboxReader,
  type InboxRecord,
  type InboxSender,
  type PaneTerminals,
  type SettledInbox,
} from '../../core/inbox/inbox-types.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import '../engine/zod-messages.js';

const ms = lazySchema(() => z.int());
const count = lazySchema(() => z.int().check(z.nonnegative()));
const id = lazySchema(() => z.string().check(z.minLength(1)));

/** Who wrote a record: an agent's pane and terminal on a host, or the service itself (all null). */
export const InboxSenderSchema = lazySchema(() =>
  z.looseObject({
    pane: z.nullable(z.string()),
    terminal: z.nullable(z.string()),
    host: z.string(),
    /** The sender's Herdr agent name when it had one, else null. */
    name: z.nullable(z.string()),
    /**
     * A sender on another host (`send --host`): that host's identity (its identity.json), so the
     * `<name> finished` notice goes to it through this host's outbox.
     */
    host_id: z.optional(z.nullable(z.string())),
  }),
);

export const InboxRecordSchema = lazySchema(() =>
  z.looseObject({
    id,
    /** message, task, reply, blocked, admission, launch_failed, check_in, undelivered (core/inbox.ts). */
    kind: id,
    sender: InboxSenderSchema,
    /**
     * As sent: untrusted, so escapes are stripped whenever it is shown or delivered. With `body`, only
     * its first part (core/inbox-space.ts); the whole text is the body file.
     */
    text: z.string(),
    /** A text too long for the inbox file lives whole in inbox/<terminal>.d/<id>.txt (inbox/settled.ts). */
    body: z.optional(
      z.looseObject({
        /** The whole text's size in UTF-8. */
        bytes: count,
        /** The whole text's length once cleaned, as a delivery's preview counts it. */
        chars: count,
      }),
    ),
    created_ms: ms,
    state: z.enum(INBOX_STATES),
    /** How many times a reader claimed it. */
    attempts: count,
    /** While claimed: when the lease ends and the record is offered again. */
    lease_until_ms: z.nullable(ms),
    delivered_ms: z.nullable(ms),
    failed_ms: z.nullable(ms),
    /** Why it failed (`terminal gone`). */
    reason: z.nullable(z.string()),
    /** What a notice is about (`ticket:t_x:admitted`), so the service posts each notice once. */
    ref: z.nullable(z.string()),
    /** An admission of `place --branch`: the worktree the reservation got, and its pane. */
    path: z.optional(z.string()),
    pane_id: z.optional(z.string()),
  }),
);

/** The harness that reads this terminal's inbox, registered by its first hook run or claim. */
export const InboxReaderSchema = lazySchema(() =>
  z.looseObject({
    harness: id,
    registered_ms: ms,
    pane: z.nullable(z.string()),
    /** Stop blocks this reader's hook gave in a row, the latest included (core/stop-chain.ts). */
    stop_blocks: z.optional(count),
  }),
);

export const InboxSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    terminal: id,
    /** The pane this terminal was last seen in, for display (a pane id follows the layout). */
    pane: z.nullable(z.string()),
    reader: z.nullable(InboxReaderSchema),
    records: z.array(InboxRecordSchema),
  }),
);

/**
 * inbox/<terminal>.d/settled.json: the records of one terminal that were delivered or failed, moved
 * out of its live file so that a hook's read never grows with the history (inbox/settled.ts).
 */
export const SettledInboxSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    terminal: id,
    records: z.array(InboxRecordSchema),
  }),
);

export const GateOwnerSchema = lazySchema(() =>
  z.looseObject({
    /** Keys of the TO LAND sets this owner was reminded of, newest last (core/gate.ts). */
    sets: z.array(z.string()),
    /** Keys of the cleanup-finding sets this owner was told of (core/sweep.ts), newest last. */
    cleanup_sets: z.optional(z.array(z.string())),
    updated_ms: ms,
  }),
);

export const GateSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    /** Keyed by the owner's pane. */
    owners: z.record(z.string(), GateOwnerSchema),
  }),
);

/** A pane's terminal as Herdr answered for one server instance; see service/inbox/pane-terminals.ts. */
export const PaneTerminalsSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    /** The Herdr server these answers came from (terminal/server-identity.ts). */
    server: z.string(),
    /** Keyed by the pane id a hook ran with (HERDR_PANE_ID). */
    panes: z.record(z.string(), z.looseObject({ terminal: id, pane: id, seen_ms: ms })),
  }),
);

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type InboxSchemasMatch = [
  Check<Matches<typeof InboxSenderSchema, InboxSender>>,
  Check<Matches<typeof InboxRecordSchema, InboxRecord>>,
  Check<Matches<typeof InboxReaderSchema, InboxReader>>,
  Check<Matches<typeof InboxSchema, Inbox>>,
  Check<Matches<typeof SettledInboxSchema, SettledInbox>>,
  Check<Matches<typeof GateOwnerSchema, GateOwner>>,
  Check<Matches<typeof GateSchema, Gate>>,
  Check<Matches<typeof PaneTerminalsSchema, PaneTerminals>>,
];
