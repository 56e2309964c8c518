// What the board rule reads (core/board/board-rule.ts): an owner's items, the queue, job records,
// agent panes, TO LAND rows and dismissals, as plain data the reader in service/board gathers.

import type { AgentPane } from '../agents/agent-pane-types.js';
import type { LandRow } from '../inbox/to-land-rule.js';
import type { JobSummary } from '../jobs/job-types.js';
import type { Receipt } from '../receipts/receipt.js';
import type { RowKind } from './board-rule.js';

/** An owner's item as the board reads it (items.json). */
export interface BoardItem {
  id: string;
  kind: 'job' | 'agent';
  host: string;
  pane: string | null;
  owner: string | null;
  created_ms: number;
  closed_ms: number | null;
  close_reason: string | null;
  job: string | null;
  ticket: string | null;
  command?: readonly string[] | undefined;
  /** Agents: the name, harness and model the child was started with. */
  name?: string | null | undefined;
  harness?: string | null | undefined;
  model?: string | null | undefined;
  /** A finished child's receipt, captured when it finished or was closed. */
  receipt?: Receipt | null | undefined;
}

/** A job record's facts (jobs/ID.json, or a host snapshot's job summary). */
export type BoardJob = Pick<
  JobSummary,
  | 'id'
  | 'cwd'
  | 'host'
  | 'pane'
  | 'created_ms'
  | 'started_ms'
  | 'ended_ms'
  | 'exit_code'
  | 'signal'
  | 'reason'
> & { command: readonly string[] };

export interface BoardTicket {
  id: string;
  kind: string;
  owner: string | null;
  pin: string | null;
  created_ms: number;
  state: string;
  state_ms: number;
  host: string | null;
  request: { command: readonly string[] } | null;
  /** An agent ticket: the child it starts. */
  agent?: { name: string; kind: string } | null | undefined;
  error: string | null;
  /** Its harness's quota is exhausted (core/quota-hold.ts): it waits for the reset, not for room. */
  hold?: { reason: string; until_ms: number } | null | undefined;
}

/**
 * Extension point for agents: what the host snapshot says of an agent item's pane (probe.agent_panes).
 * The agent lane fills it in; without it an open agent item shows as `unknown`.
 */
export type BoardAgentPane = Pick<
  AgentPane,
  'pane' | 'agent' | 'state' | 'name' | 'model' | 'stalled_since_ms' | 'state_since_ms'
>;

export interface BoardInput {
  owner: string;
  /**
   * Every item of the owner still kept: open, closed within the last day, or a child's whose branch
   * still has work to land (item-closing.ts).
   */
  items: readonly BoardItem[];
  /** The whole queue (places in line count every owner's pending tickets). */
  tickets: readonly BoardTicket[];
  /** Job facts by job id. */
  jobs: ReadonlyMap<string, BoardJob>;
  /** Agent panes by pane id (host snapshots); empty until agents join. */
  agentPanes?: ReadonlyMap<string, BoardAgentPane>;
  /** The owner's TO LAND rows (core/to-land.ts), the ones the stop gate and prompt context read. */
  toLand?: readonly LandRow[];
  /** The owner's dismissals (board-seen.json). */
  seen?: readonly BoardSeen[];
}

/**
 * An ATTENTION row the owner marked seen: it moves to DONE while the same row (kind, id) stays in
 * the same state (since_ms); a new failure of the same job or ticket, or an agent blocked again,
 * starts a new state and shows in ATTENTION again. The job's own record is never touched.
 */
export interface BoardSeen {
  kind: RowKind;
  id: string;
  since_ms: number | null;
  seen_ms: number;
}
