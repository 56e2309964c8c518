// The records of the message layer: inbox/<terminal>.json (a terminal's reader and the records that
// wait), its settled.json, gate.json (the stop gate's once-per-set history) and the pane-terminal
// memo. The core owns them; inbox-schemas.ts checks its schemas against them.

/** Who wrote a record: an agent's pane and terminal on a host, or the service itself (all null). */
export type InboxSender = {
  pane: string | null;
  terminal: string | null;
  host: string;
  /** The sender's Herdr agent name when it had one, else null. */
  name: string | null;
  /** A sender on another host (`send --host`): that host's identity, for the `<name> finished` notice. */
  host_id?: string | null;
};

export const INBOX_STATES = ['pending', 'claimed', 'delivered', 'failed'] as const;
export type InboxState = (typeof INBOX_STATES)[number];

export type InboxRecord = {
  id: string;
  /** message, task, reply, blocked, admission, launch_failed, check_in, undelivered (inbox.ts). */
  kind: string;
  sender: InboxSender;
  /**
   * As sent: untrusted, so escapes are stripped whenever it is shown or delivered. With `body`, only
   * its first part (inbox-space.ts); the whole text is the body file.
   */
  text: string;
  /** A text too long for the inbox file lives whole in inbox/<terminal>.d/<id>.txt. */
  body?: {
    /** The whole text's size in UTF-8. */
    bytes: number;
    /** The whole text's length once cleaned, as a delivery's preview counts it. */
    chars: number;
  };
  created_ms: number;
  state: InboxState;
  /** How many times a reader claimed it. */
  attempts: number;
  /** While claimed: when the lease ends and the record is offered again. */
  lease_until_ms: number | null;
  delivered_ms: number | null;
  failed_ms: number | null;
  /** Why it failed (`terminal gone`). */
  reason: string | null;
  /** What a notice is about (`ticket:t_x:admitted`), so the service posts each notice once. */
  ref: string | null;
  /** An admission of `place --branch`: the worktree the reservation got, and its pane. */
  path?: string;
  pane_id?: string;
};

/** The harness that reads this terminal's inbox, registered by its first hook run or claim. */
export type InboxReader = {
  harness: string;
  registered_ms: number;
  pane: string | null;
  /** Stop blocks this reader's hook gave in a row, the latest included (stop-chain.ts). */
  stop_blocks?: number;
};

export type Inbox = {
  version: 1;
  terminal: string;
  /** The pane this terminal was last seen in, for display (a pane id follows the layout). */
  pane: string | null;
  reader: InboxReader | null;
  records: InboxRecord[];
};

/** inbox/<terminal>.d/settled.json: the records of one terminal that were delivered or failed. */
export type SettledInbox = { version: 1; terminal: string; records: InboxRecord[] };

export type GateOwner = {
  /** Keys of the TO LAND sets this owner was reminded of, newest last (gate-rule.ts). */
  sets: string[];
  /** Keys of the cleanup-finding sets this owner was told of, newest last. */
  cleanup_sets?: string[];
  updated_ms: number;
};

/** gate.json, keyed by the owner's pane. */
export type Gate = { version: 1; owners: Record<string, GateOwner> };

/** A pane's terminal as Herdr answered for one server instance, keyed by the pane id a hook ran with. */
export type PaneTerminals = {
  version: 1;
  /** The Herdr server these answers came from. */
  server: string;
  panes: Record<string, { terminal: string; pane: string; seen_ms: number }>;
};
