// The `--json` documents of `place`, `run` and `agent`, as zod schemas: each form prints exactly one document
// on stdout (DESIGN §5), and its exit status says which kind. Only tests and tools import this
// module at run time; the commands import its types, so no command pays for building the schemas.

import * as z from 'zod/mini';

const id = z.string().check(z.minLength(1));

/** Every host is full and the caller does not wait (exit 1). */
export const QueuedSchema = z.strictObject({ queued: z.literal(true), ticket: id });

/** A wait reached --max while its ticket was still pending (exit 124). */
export const StillQueuedSchema = z.strictObject({
  queued: z.literal(true),
  ticket: id,
  still_running: z.literal(true),
});

/** A reservation (exit 0); `ticket` when it came through the queue (`place --wait`). */
export const PlacedSchema = z.strictObject({
  placed: z.literal(true),
  host: z.string(),
  label: z.string(),
  reservation: id,
  expires_ms: z.int(),
  ticket: z.optional(id),
});

export const PlaceOutputSchema = z.union([PlacedSchema, QueuedSchema, StillQueuedSchema]);

/** `run --json`: the job started in its pane (exit 0). */
export const RunStartedSchema = z.strictObject({
  queued: z.literal(false),
  job: id,
  item: id,
  host: z.string(),
  pane: z.nullable(z.string()),
});

const waitedJob = {
  queued: z.literal(false),
  /** The ticket the job was admitted from, null when it was placed at once. */
  ticket: z.nullable(id),
  job: id,
  item: z.nullable(id),
  host: z.string(),
  pane: z.nullable(z.string()),
};

/** `run --wait --json`: the job ended; `status` is the command's exit status. */
export const RunEndedSchema = z.strictObject({
  ...waitedJob,
  status: z.int(),
  exit_code: z.nullable(z.int()),
  signal: z.nullable(z.string()),
  reason: z.nullable(z.string()),
});

/** `run --wait --json` at --max with the job still running (exit 124). */
export const RunStillRunningSchema = z.strictObject({ ...waitedJob, still_running: z.literal(true) });

export const RunOutputSchema = z.union([
  RunStartedSchema,
  QueuedSchema,
  RunEndedSchema,
  RunStillRunningSchema,
  StillQueuedSchema,
]);

/** `place --branch --json`: the reservation with the branch's worktree and its pane. */
export const PlacedBranchSchema = z.strictObject({
  ...PlacedSchema.shape,
  path: z.string(),
  pane_id: z.string(),
  branch: z.string(),
  workspace: z.string(),
  created: z.boolean(),
});

/** `agent --json`: the child started (exit 0); `ticket` when it came through the queue. */
export const AgentStartedSchema = z.strictObject({
  queued: z.literal(false),
  launch: id,
  item: id,
  name: id,
  kind: z.enum(['pi', 'claude', 'codex']),
  host: z.string(),
  label: z.string(),
  pane: z.nullable(z.string()),
  terminal_id: z.nullable(z.string()),
  workspace: z.nullable(z.string()),
  profile: z.nullable(z.string()),
  model: z.nullable(z.string()),
  role: z.enum(['reader', 'writer']),
  cwd: z.string(),
  branch: z.nullable(z.string()),
  worktree: z.nullable(z.string()),
  ticket: z.optional(id),
});

export const AgentOutputSchema = z.union([AgentStartedSchema, QueuedSchema, StillQueuedSchema]);

export type Queued = z.infer<typeof QueuedSchema>;
export type AgentStarted = z.infer<typeof AgentStartedSchema>;
export type PlacedBranch = z.infer<typeof PlacedBranchSchema>;
export type StillQueued = z.infer<typeof StillQueuedSchema>;
export type Placed = z.infer<typeof PlacedSchema>;
export type RunStarted = z.infer<typeof RunStartedSchema>;
export type RunEnded = z.infer<typeof RunEndedSchema>;
export type RunStillRunning = z.infer<typeof RunStillRunningSchema>;
