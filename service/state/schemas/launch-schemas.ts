// zod schema of a launch record (launches/<id>.json on the host that runs the child): what was asked,
// where it went (pane, terminal, worktree) and how far it got. It is durable evidence for cleanup:
// the pane rule reads `terminal_id` and `state` (core/launch-state.ts). Loose, so fields written by
// a newer dogsled survive a read-modify-write by this one.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import { AGENT_KINDS } from '../../core/agents/launch-line.js';
import { LAUNCH_STATES } from '../../core/agents/launch-state.js';
import type { LaunchRecord } from '../../core/agents/launch-types.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import '../engine/zod-messages.js';

const ms = lazySchema(() => z.int());
const id = lazySchema(() => z.string().check(z.minLength(1)));

export const LaunchRecordSchema = lazySchema(() =>
  z.looseObject({
    id,
    /** The owner's ticket and item, when the launch came from one. */
    ticket: z.nullable(z.string()),
    item: z.nullable(z.string()),
    /** The owner's pane (HERDR_PANE_ID), null outside Herdr. */
    owner: z.nullable(z.string()),
    host: id,
    /** Herdr's name for the agent. */
    name: id,
    kind: z.enum(AGENT_KINDS),
    profile: z.nullable(z.string()),
    model: z.nullable(z.string()),
    role: z.enum(['reader', 'writer']),
    /** Where the child works: its worktree, or the directory it was given. */
    cwd: id,
    branch: z.nullable(z.string()),
    worktree: z.nullable(z.string()),
    /** The pane the agent starts in and its terminal (the pane rule matches launches by terminal). */
    pane: z.nullable(z.string()),
    terminal_id: z.nullable(z.string()),
    workspace: z.nullable(z.string()),
    task_file: id,
    contract_file: id,
    state: z.enum(LAUNCH_STATES),
    /** `herdr agent start` calls made so far (three at most). */
    attempts: z.int().check(z.nonnegative()),
    /** Why the last try failed or was refused (Herdr's code first, e.g. `agent_pane_busy: ...`). */
    error: z.nullable(z.string()),
    /** Every failed try's error, oldest first: the last alone hides why the first one failed. */
    try_errors: z.optional(z.array(z.string())),
    /** The pane's last lines when a start failed, escapes stripped. */
    recent_output: z.nullable(z.string()),
    created_ms: ms,
    /** When `state` last changed. */
    state_ms: ms,
    /** When Herdr reported the agent ready (or the start was proved after its pane was gone). */
    started_ms: z.nullable(ms),
    /**
     * A start Herdr never confirmed, proved after the pane was gone by what the child left (`done
     * mark`, `reply`, `inbox record`, `outbox record`, `transcript`); absent when Herdr confirmed it.
     */
    start_evidence: z.optional(z.array(z.string())),
  }),
);

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type LaunchSchemasMatch = [Check<Matches<typeof LaunchRecordSchema, LaunchRecord>>];
