// A launch record (launches/<id>.json on the host that runs the child): what was asked, where it
// went and how far it got; durable evidence for cleanup (the pane rule reads `terminal_id` and
// `state`). The core owns it; launch-schemas.ts checks its schema against it.

import type { AgentKind } from './launch-line.js';
import type { LaunchState } from './launch-state.js';

export type LaunchRecord = {
  id: string;
  /** The owner's ticket and item, when the launch came from one. */
  ticket: string | null;
  item: string | null;
  /** The owner's pane (HERDR_PANE_ID), null outside Herdr. */
  owner: string | null;
  host: string;
  /** Herdr's name for the agent. */
  name: string;
  kind: AgentKind;
  profile: string | null;
  model: string | null;
  role: 'reader' | 'writer';
  /** Where the child works: its worktree, or the directory it was given. */
  cwd: string;
  branch: string | null;
  worktree: string | null;
  /** The pane the agent starts in and its terminal (the pane rule matches launches by terminal). */
  pane: string | null;
  terminal_id: string | null;
  workspace: string | null;
  task_file: string;
  contract_file: string;
  state: LaunchState;
  /** `herdr agent start` calls made so far (three at most). */
  attempts: number;
  /** Why the last try failed or was refused (Herdr's code first, e.g. `agent_pane_busy: ...`). */
  error: string | null;
  /** Every failed try's error, oldest first: the last alone hides why the first one failed. */
  try_errors?: string[];
  /** The pane's last lines when a start failed, escapes stripped. */
  recent_output: string | null;
  created_ms: number;
  /** When `state` last changed. */
  state_ms: number;
  /** When Herdr reported the agent ready (or the start was proved after its pane was gone). */
  started_ms: number | null;
  /** A start Herdr never confirmed, proved after the pane was gone by what the child left. */
  start_evidence?: string[];
};
