// The records of items.json: one item per job or agent an owner started, on the owner's host, until
// it closes (item-closing.ts). The core owns them; queue-items-schemas.ts checks its schemas
// against them.

import type { BranchSeen } from '../inbox/outbox-types.js';

export type Item = {
  id: string;
  kind: 'job' | 'agent';
  host: string;
  pane: string | null;
  terminal_id: string | null;
  /** The owner's pane. */
  owner: string | null;
  /**
   * A child here whose owner is on another host: that host's identity and the owner's pane there
   * (`owner` is null). Its messages wait in this host's outbox.json; absent or null: the owner is here.
   */
  owner_host?: string | null;
  owner_pane?: string | null;
  /** Such a child's close, once posted to that outbox (so it is posted once). */
  owner_told_ms?: number | null;
  created_ms: number;
  closed_ms: number | null;
  /** Why it closed: `job ended`, `pane gone`, ... */
  close_reason: string | null;
  job: string | null;
  ticket: string | null;
  /** A job item's command, for display. */
  command?: string[];
  /** An agent item: Herdr's name, the harness, its profile, model and role, and its launch. */
  name?: string | null;
  harness?: string | null;
  profile?: string | null;
  model?: string | null;
  role?: 'reader' | 'writer' | null;
  launch?: string | null;
  /** Where the child works: its branch and worktree (`--branch`), else null. */
  branch?: string | null;
  worktree?: string | null;
  /** The main checkout of the repository the branch is in, to watch the branch after the worktree went. */
  repository?: string | null;
  cwd?: string | null;
  /** The child's final reply, captured when it finished (escapes stripped). */
  reply?: string | null;
  /**
   * The owner's item of a child on a peer: what the peer last saw of its branch, for TO LAND here,
   * where the branch cannot be read. On the peer: what it last forwarded.
   */
  branch_seen?: BranchSeen | null;
  /** Set by the service while this is an orphaned child it keeps open: why it stays, and since when. */
  orphaned?: { reason: string; since_ms: number } | null;
};

export type Items = { version: 1; items: Item[] };
