// zod schemas of the owner's work ledgers: queue.json (FIFO tickets for work that found no room) and
// items.json (one item per job or agent an owner started). Both live on the owner's host and change
// only under their locks (queue.json before items.json, lock.ts). Objects are loose, so fields
// written by a newer dogsled survive a read-modify-write by this one.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import type { Item, Items } from '../../core/agents/item-types.js';
import { AGENT_KINDS } from '../../core/agents/launch-line.js';
import type { EnvFile } from '../../core/jobs/job-types.js';
import {
  type Admitter,
  type AgentRequest,
  type JobRequest,
  type PlaceBranch,
  type PlacedWorktree,
  type Queue,
  TICKET_STATES,
  type Ticket,
} from '../../core/placement/queue-types.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import '../engine/zod-messages.js';
import { ReceiptSchema } from './receipt-schemas.js';

const ms = lazySchema(() => z.int());
const id = lazySchema(() => z.string().check(z.minLength(1)));

/** What a job needs to start later, exactly as the caller asked. Never the environment: it may hold secrets. */
export const JobRequestSchema = lazySchema(() =>
  z.looseObject({
    /** The argv `exec` runs (never a shell string). */
    command: z.array(z.string()).check(z.minLength(1)),
    cwd: z.string().check(z.minLength(1)),
    timeout_ms: z.nullable(ms),
    idle_timeout_ms: z.nullable(ms),
    /** The caller's Herdr workspace when it asked, for the tab placement rules. */
    caller_workspace: z.nullable(z.string()),
    /** `--branch`/`--base`: the job runs in that branch's worktree, made or reused at launch. */
    branch: z.optional(z.nullable(z.string())),
    base: z.optional(z.nullable(z.string())),
  }),
);

/**
 * What a child agent needs to start later (`dogsled agent`). The task is never here: it is already
 * launches/<launch>.task.md on this host, written before the ticket was queued.
 */
export const AgentRequestSchema = lazySchema(() =>
  z.looseObject({
    /** The launch id: its task file exists, and its record is made when the launch begins. */
    launch: id,
    kind: z.enum(AGENT_KINDS),
    /** Herdr's name for the agent. */
    name: id,
    profile: z.nullable(z.string()),
    branch: z.nullable(z.string()),
    base: z.nullable(z.string()),
    /** The directory the child works in (or whose repository `branch` is in). */
    cwd: id,
    caller_workspace: z.nullable(z.string()),
  }),
);

/** `place --branch B [--base R] [--repo P]` as the caller asked it; `repo` is an absolute path. */
export const PlaceBranchSchema = lazySchema(() =>
  z.looseObject({
    branch: id,
    base: z.nullable(z.string()),
    repo: id,
  }),
);

export const PlacedWorktreeSchema = lazySchema(() =>
  z.looseObject({
    path: id,
    branch: id,
    pane_id: id,
    workspace: id,
  }),
);

/** Who was admitting a ticket: a service that is gone with the ticket still `admitting` was interrupted. */
export const AdmitterSchema = lazySchema(() => z.looseObject({ pid: z.int(), started_ms: ms }));

export const TicketSchema = lazySchema(() =>
  z.looseObject({
    id,
    /**
     * `job` launches `request` when admitted, `agent` starts `agent`; `place` only takes a reservation
     * (`dogsled place`).
     */
    kind: z.enum(['job', 'place', 'agent']),
    created_ms: ms,
    /** The caller's pane (HERDR_PANE_ID), null outside Herdr. */
    owner: z.nullable(z.string()),
    /** A host id or label the caller pinned; null lets placement choose. */
    pin: z.nullable(z.string()),
    /** The job to start; null for a `place` or `agent` ticket. */
    request: z.nullable(JobRequestSchema),
    /** The child agent to start, for an `agent` ticket. */
    agent: z.optional(z.nullable(AgentRequestSchema)),
    /**
     * `place --branch`: the branch whose worktree the admitted reservation gets (made by the service
     * for a caller that does not wait; a waiting caller makes it itself), in `repo`'s repository.
     */
    place: z.optional(z.nullable(PlaceBranchSchema)),
    /** The worktree the service made or reused for an admitted `place --branch` ticket, and its pane. */
    worktree: z.optional(z.nullable(PlacedWorktreeSchema)),
    /** The caller waits for it (`--wait`); otherwise the owner hears of the outcome through its inbox. */
    waiting: z.boolean(),
    state: z.enum(TICKET_STATES),
    state_ms: ms,
    admitter: z.nullable(AdmitterSchema),
    host: z.nullable(z.string()),
    reservation: z.nullable(z.string()),
    job: z.nullable(z.string()),
    item: z.nullable(z.string()),
    /** Why it failed or was cancelled. */
    error: z.nullable(z.string()),
    /**
     * The owner's notice of admission or failure: `pending` until the inbox delivers it (a non-waiting
     * caller), `delivered`, or null when nobody needs one (a waiting caller sees it itself).
     */
    notice: z.nullable(z.enum(['pending', 'delivered'])),
    /**
     * Why a pending ticket waits for quota (`[quota] hold_when_exhausted`): its harness's pool is
     * exhausted until `until_ms`. Absent or null when it waits only for room.
     */
    hold: z.optional(z.nullable(z.looseObject({ pool: z.string(), until_ms: ms, reason: z.string() }))),
  }),
);

export const QueueSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    tickets: z.array(TicketSchema),
  }),
);

export const ItemSchema = lazySchema(() =>
  z.looseObject({
    id,
    kind: z.enum(['job', 'agent']),
    host: z.string(),
    pane: z.nullable(z.string()),
    terminal_id: z.nullable(z.string()),
    /** The owner's pane. */
    owner: z.nullable(z.string()),
    /**
     * A child here whose owner is on another host: that host's identity (identity.json there) and the
     * owner's pane there (`owner` is null: no pane here is its owner). Its messages wait in this host's
     * outbox.json for the owner's service; absent or null: the owner is here.
     */
    owner_host: z.optional(z.nullable(z.string())),
    owner_pane: z.optional(z.nullable(z.string())),
    /** Such a child's close, once posted to that outbox (so it is posted once). */
    owner_told_ms: z.optional(z.nullable(ms)),
    created_ms: ms,
    closed_ms: z.nullable(ms),
    /** Why it closed: `job ended`, `pane gone`, ... */
    close_reason: z.nullable(z.string()),
    job: z.nullable(z.string()),
    ticket: z.nullable(z.string()),
    /** A job item's command, for display. */
    command: z.optional(z.array(z.string())),
    /** An agent item: Herdr's name, the harness, its profile, model and role, and its launch. */
    name: z.optional(z.nullable(z.string())),
    harness: z.optional(z.nullable(z.string())),
    profile: z.optional(z.nullable(z.string())),
    model: z.optional(z.nullable(z.string())),
    role: z.optional(z.nullable(z.enum(['reader', 'writer']))),
    launch: z.optional(z.nullable(z.string())),
    /** Where the child works: its branch and worktree (`--branch`), else null. */
    branch: z.optional(z.nullable(z.string())),
    worktree: z.optional(z.nullable(z.string())),
    /** The main checkout of the repository the branch is in, to watch the branch after the worktree went. */
    repository: z.optional(z.nullable(z.string())),
    cwd: z.optional(z.nullable(z.string())),
    /** The child's final reply, captured when it finished (escapes stripped). */
    reply: z.optional(z.nullable(z.string())),
    /**
     * What the child used and cost (core/receipts), read from its transcript when it finished or was
     * closed; absent: not captured (a child that ended otherwise, or an older dogsled).
     */
    receipt: z.optional(z.nullable(ReceiptSchema)),
    /** When its history.jsonl entry was written (service/history), so it is written once. */
    history_ms: z.optional(z.nullable(ms)),
    /**
     * The owner's item of a child on a peer: what the peer last saw of its branch (forwarded through
     * the peer's outbox), for TO LAND here, where the branch cannot be read. On the peer: what it
     * last forwarded.
     */
    branch_seen: z.optional(
      z.nullable(z.looseObject({ ahead: z.int(), dirty: z.boolean(), landed: z.boolean(), observed_ms: ms })),
    ),
    /**
     * Set by the service while this is an orphaned child it keeps open (called done, owner gone):
     * why it stays (core/orphans.ts), and since when.
     */
    orphaned: z.optional(z.nullable(z.looseObject({ reason: z.string(), since_ms: ms }))),
  }),
);

export const ItemsSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    items: z.array(ItemSchema),
  }),
);

/**
 * The caller's environment for one job (jobs/ID.env) or one queued ticket (tickets/ID.env): kept out
 * of the job record, queue.json and host.json because it can hold secrets. 0600 in the 0700 state
 * dir; the exec supervisor consumes and removes it when it claims the job (state/job-env.ts).
 */
export const EnvFileSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    env: z.record(z.string(), z.string()),
  }),
);

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type QueueItemsSchemasMatch = [
  Check<Matches<typeof JobRequestSchema, JobRequest>>,
  Check<Matches<typeof AgentRequestSchema, AgentRequest>>,
  Check<Matches<typeof PlaceBranchSchema, PlaceBranch>>,
  Check<Matches<typeof PlacedWorktreeSchema, PlacedWorktree>>,
  Check<Matches<typeof AdmitterSchema, Admitter>>,
  Check<Matches<typeof TicketSchema, Ticket>>,
  Check<Matches<typeof QueueSchema, Queue>>,
  Check<Matches<typeof ItemSchema, Item>>,
  Check<Matches<typeof ItemsSchema, Items>>,
  Check<Matches<typeof EnvFileSchema, EnvFile>>,
];
