// An agent's pane as the service observes it each tick (host.json's probe.agent_panes): what the
// stall clocks, the board and the pane rule read. The core owns the record; host-schemas.ts checks
// its schema against it.

/** The session's latest activity, read from the tail of its transcript; text is escape-free. */
export type Activity = { at_ms: number | null; kind: string; text: string };

/** One Herdr pane that hosts a coding agent, as the service observed it this tick. */
export type AgentPane = {
  pane: string;
  agent: string;
  /** Herdr's agent_status: working, blocked, done, idle or unknown. */
  state: string;
  name: string | null;
  /** null when the transcript is absent, ambiguous or unreadable; such an agent never stalls. */
  transcript: string | null;
  transcript_modified: number | null;
  terminal_id: string;
  /** Herdr's state_change_seq: grows on every lifecycle change. */
  completion_seq: number;
  cwd: string | null;
  model: string | null;
  activity: Activity | null;
  /** The checkout's branch (null when detached or not a repository). */
  branch: string | null;
  /** Commits on the branch that the default branch does not have. */
  ahead: number | null;
  dirty: boolean | null;
  landed: boolean | null;
  stalled_since_ms: number | null;
  state_since_ms: number;
};
