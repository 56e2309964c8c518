// The records of the watchdog: watchdog.json (the service's memory of check-ins, job-completion
// events and stall notifications) and parents.json (the children here whose owners are on other
// hosts). The core owns them; watchdog-schemas.ts checks its schemas against them.

/** A check-in decided and recorded before it is posted, so a restart posts the same one (by ref). */
export type PendingCheckIn = {
  /** The inbox record's ref: `check_in:<id>`; a ref is never posted twice. */
  ref: string;
  terminal: string;
  pane: string | null;
  text: string;
  decided_ms: number;
  stalls: Record<string, number>;
  jobs: string[];
};

export type WatchdogOwner = {
  last_check_in_ms: number | null;
  /** The latest lifecycle event the watchdog saw itself (a job of this owner ended). */
  last_event_ms: number | null;
  /** Stall episodes already reported, by item: the episode's start. */
  stalls: Record<string, number>;
  pending: PendingCheckIn | null;
};

export type JobEventRecord = {
  owner: string;
  command: string[];
  ended_ms: number;
  exit_code: number | null;
  signal: string | null;
  reason: string | null;
  log: string[];
  seen_ms: number;
  /** Set when a check-in carrying it was posted. */
  delivered_ms: number | null;
};

export type WatchdogState = {
  version: 1;
  /** When this memory began: jobs that ended before it are not events (no flood on a first start). */
  since_ms: number;
  /** Keyed by the owner's pane. */
  owners: Record<string, WatchdogOwner>;
  /** Job-completion events, keyed by job id; they outlive the job's item. */
  events: Record<string, JobEventRecord>;
  /** Stall episodes of top-level panes already notified: terminal id -> the episode's start. */
  notified: Record<string, number>;
};

/** One child here whose owner is on another host, until its close was forwarded to the owner. */
export type ParentLink = {
  /** The owner's pane on its host (null: the owner ran outside Herdr and tmux). */
  owner: string | null;
  /** The owner's host identity: its messages wait in outbox.json here. */
  owner_host: string;
  /** The child's item here, and its pane when it was launched. */
  item?: string | null;
  pane?: string | null;
  linked_ms?: number;
};

/** parents.json, keyed by the child's Herdr terminal id. */
export type Parents = { version: 1; children: Record<string, ParentLink> };
