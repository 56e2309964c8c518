// The records of queue.json: FIFO tickets for work that found no room, what each asks to start, and
// where it stands. Ticket states change only through tickets.ts. The core owns the records;
// queue-items-schemas.ts checks its schemas against them.

import type { AgentKind } from '../agents/launch-line.js';

/** What a job needs to start later, exactly as the caller asked. Never the environment: it may hold secrets. */
export type JobRequest = {
  /** The argv `exec` runs (never a shell string). */
  command: string[];
  cwd: string;
  timeout_ms: number | null;
  idle_timeout_ms: number | null;
  /** The caller's Herdr workspace when it asked, for the tab placement rules. */
  caller_workspace: string | null;
  /** `--branch`/`--base`: the job runs in that branch's worktree, made or reused at launch. */
  branch?: string | null;
  base?: string | null;
};

/** What a child agent needs to start later; its task is already launches/<launch>.task.md. */
export type AgentRequest = {
  /** The launch id: its task file exists, and its record is made when the launch begins. */
  launch: string;
  kind: AgentKind;
  /** Herdr's name for the agent. */
  name: string;
  profile: string | null;
  branch: string | null;
  base: string | null;
  /** The directory the child works in (or whose repository `branch` is in). */
  cwd: string;
  caller_workspace: string | null;
};

/** `place --branch B [--base R] [--repo P]` as the caller asked it; `repo` is an absolute path. */
export type PlaceBranch = { branch: string; base: string | null; repo: string };

export type PlacedWorktree = { path: string; branch: string; pane_id: string; workspace: string };

export const TICKET_STATES = ['pending', 'admitting', 'admitted', 'failed', 'cancelled'] as const;
export type TicketState = (typeof TICKET_STATES)[number];

/** Who was admitting a ticket: a service that is gone with the ticket still `admitting` was interrupted. */
export type Admitter = { pid: number; started_ms: number };

export type Ticket = {
  id: string;
  /** `job` launches `request` when admitted, `agent` starts `agent`; `place` only takes a reservation. */
  kind: 'job' | 'place' | 'agent';
  created_ms: number;
  /** The caller's pane (HERDR_PANE_ID), null outside Herdr. */
  owner: string | null;
  /** A host id or label the caller pinned; null lets placement choose. */
  pin: string | null;
  /** The job to start; null for a `place` or `agent` ticket. */
  request: JobRequest | null;
  /** The child agent to start, for an `agent` ticket. */
  agent?: AgentRequest | null;
  /** `place --branch`: the branch whose worktree the admitted reservation gets, in `repo`'s repository. */
  place?: PlaceBranch | null;
  /** The worktree the service made or reused for an admitted `place --branch` ticket, and its pane. */
  worktree?: PlacedWorktree | null;
  /** The caller waits for it (`--wait`); otherwise the owner hears of the outcome through its inbox. */
  waiting: boolean;
  state: TicketState;
  state_ms: number;
  admitter: Admitter | null;
  host: string | null;
  reservation: string | null;
  job: string | null;
  item: string | null;
  /** Why it failed or was cancelled. */
  error: string | null;
  /** The owner's notice of admission or failure: `pending` until delivered, null when nobody needs one. */
  notice: 'pending' | 'delivered' | null;
  /** Why a pending ticket waits for quota (`[quota] hold_when_exhausted`), until `until_ms`. */
  hold?: { pool: string; until_ms: number; reason: string } | null;
};

export type Queue = { version: 1; tickets: Ticket[] };
