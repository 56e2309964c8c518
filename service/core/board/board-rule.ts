// The board rule (spec, "Items and closing"): an owner's work grouped by what the owner must do,
// TO LAND, ATTENTION, RUNNING, WAITING, then DONE (history that needs nothing, shown folded). Each
// row carries what a renderer draws (`dogsled board`, the sidebar, the Pi widget). Pure: the reader
// in service/board gathers items, tickets, job records, agent panes and the owner's TO LAND rows.
// Untrusted text (commands, names, errors) is made escape-free here, once, for every renderer.

import { formatAge } from '../common/duration.js';
import { shellLine } from '../common/shell-quote.js';
import type { LandRow } from '../inbox/to-land-rule.js';
import { endToken, NEVER_STARTED, neverStarted, WRAPPER_LOST } from '../jobs/job-status.js';
import { isHeld } from '../quota/quota-hold.js';
import { receiptText } from '../receipts/receipt.js';
import { clip, plainLine } from '../text/clean.js';

import type {
  BoardAgentPane,
  BoardInput,
  BoardItem,
  BoardJob,
  BoardSeen,
  BoardTicket,
} from './board-input.js';

export type { BoardAgentPane, BoardInput, BoardItem, BoardJob, BoardSeen, BoardTicket };

export const BOARD_GROUPS = ['to_land', 'attention', 'running', 'waiting', 'done'] as const;
export type BoardGroupId = (typeof BOARD_GROUPS)[number];
export const GROUP_TITLES: Record<BoardGroupId, string> = {
  to_land: 'TO LAND',
  attention: 'ATTENTION',
  running: 'RUNNING',
  waiting: 'WAITING',
  done: 'DONE',
};

/** Titles are cut here so a hostile command cannot make every renderer carry megabytes. */
export const TITLE_MAX = 200;
/** The wrapper died without a final record (jobs/reconcile.ts writes this reason). */

export type RowKind = 'agent' | 'job' | 'ticket';

export interface BoardRow {
  kind: RowKind;
  /** Job id, ticket id, or the agent item's id. */
  id: string;
  host: string | null;
  pane: string | null;
  /** The job's command (shell-quoted, escape-free), or the agent's name, or what a ticket asks for. */
  title: string;
  /** Agents: `harness · model`; jobs: the directory; tickets: the pinned host. */
  detail: string | null;
  /** One word for the pill: running, starting, exit 3, timeout, blocked, queued, failed, ... */
  state: string;
  /** When the current state began, and how long ago that is. */
  since_ms: number | null;
  age_ms: number | null;
  /**
   * Why the row is where it is, for ATTENTION and TO LAND, and why a WAITING ticket waits for quota
   * (escape-free, one line).
   */
  reason: string | null;
  /** WAITING tickets: 1-based place among every pending ticket, oldest first. */
  place: number | null;
  item: string | null;
  job: string | null;
  ticket: string | null;
  group: BoardGroupId;
  /** When the owner dismissed it (`board --dismiss`): an ATTENTION row moved to DONE; else null. */
  seen_ms: number | null;
  /** A finished child's receipt, `12k tok · $0.31` or `usage unknown` (core/receipts); else null. */
  receipt: string | null;
}

export interface BoardGroup {
  id: BoardGroupId;
  title: string;
  rows: BoardRow[];
}

export interface Board {
  version: 1;
  owner: string;
  now_ms: number;
  groups: BoardGroup[];
}

/** The board of `input.owner` at `now`. Rows in each group are oldest first. */
export function boardOf(input: BoardInput, now: number): Board {
  const rows: BoardRow[] = [];
  const landing = new Set((input.toLand ?? []).map((land) => land.item));
  const receipts = new Map<string, string>();
  for (const item of input.items) {
    if (item.owner !== input.owner) continue;
    if (item.kind === 'agent' && item.closed_ms !== null && item.receipt !== undefined)
      receipts.set(item.id, receiptText(item.receipt));
    // A finished child with a branch to land is its TO LAND row, which carries its receipt.
    if (item.kind === 'agent' && item.closed_ms !== null && landing.has(item.id)) continue;
    const row = item.kind === 'job' ? jobRow(item, input.jobs, now) : agentRow(item, input.agentPanes, now);
    if (row) rows.push(row);
  }
  rows.push(...ticketRows(input, now));
  for (const land of input.toLand ?? [])
    rows.push({ ...toLandRow(land, now), receipt: receipts.get(land.item) ?? null });
  for (const seen of input.seen ?? []) {
    const row = rows.find(
      (r) =>
        r.group === 'attention' && r.kind === seen.kind && r.id === seen.id && r.since_ms === seen.since_ms,
    );
    if (row) {
      row.group = 'done';
      row.seen_ms = seen.seen_ms;
    }
  }
  const groups = BOARD_GROUPS.map((id) => ({
    id,
    title: GROUP_TITLES[id],
    rows: rows.filter((row) => row.group === id).sort((a, b) => (a.since_ms ?? 0) - (b.since_ms ?? 0)),
  }));
  return { version: 1, owner: input.owner, now_ms: now, groups };
}

export function commandTitle(argv: readonly string[]): string {
  // Each argument is cleaned before quoting, so an unterminated escape cannot swallow a quote.
  return clip(shellLine(argv.map(plainLine)), TITLE_MAX);
}

function blank(kind: RowKind, id: string, group: BoardGroupId): BoardRow {
  return {
    kind,
    id,
    host: null,
    pane: null,
    title: '',
    detail: null,
    state: '',
    since_ms: null,
    age_ms: null,
    reason: null,
    place: null,
    item: null,
    job: null,
    ticket: null,
    group,
    seen_ms: null,
    receipt: null,
  };
}

function ageOf(since: number | null, now: number): number | null {
  return since === null ? null : Math.max(0, now - since);
}

/**
 * A job row. The job record is the truth, whatever the item says:
 * - created, not started: RUNNING `starting`; after NEVER_STARTED_MS, ATTENTION `never started`;
 * - running: RUNNING `running`, since it started;
 * - ended with exit 0: DONE `exit 0`; stopped (someone ran `dogsled stop`): DONE `stopped`;
 * - ended any other way (non-zero exit, signal, timeout, idle timeout, wrapper lost, never started):
 *   ATTENTION with the end token. The service closes a job item as soon as its job ends, so the row
 *   stays while items.json keeps the item: a day after it closed (ITEM_RETENTION_MS).
 * - no record: an open item is ATTENTION `record missing`; a closed one is gone (it expired).
 */
function jobRow(item: BoardItem, jobs: ReadonlyMap<string, BoardJob>, now: number): BoardRow | undefined {
  const job = item.job === null ? undefined : jobs.get(item.job);
  if (!job) {
    if (item.closed_ms !== null) return undefined;
    const row = blank('job', item.job ?? item.id, 'attention');
    return {
      ...row,
      host: item.host,
      pane: item.pane,
      title: item.command ? commandTitle(item.command) : '',
      state: 'missing',
      since_ms: item.created_ms,
      age_ms: ageOf(item.created_ms, now),
      reason: 'job record missing',
      item: item.id,
      job: item.job,
      ticket: item.ticket,
    };
  }
  const base = {
    ...blank('job', job.id, 'running'),
    host: job.host,
    pane: job.pane,
    title: commandTitle(job.command),
    detail: clip(plainLine(job.cwd), TITLE_MAX),
    item: item.id,
    job: job.id,
    ticket: item.ticket,
  };
  const at = (group: BoardGroupId, state: string, since: number, reason: string | null = null) => ({
    ...base,
    group,
    state,
    since_ms: since,
    age_ms: ageOf(since, now),
    reason,
  });
  if (job.ended_ms === null) {
    if (job.started_ms !== null) return at('running', 'running', job.started_ms);
    if (neverStarted(job, now)) return at('attention', NEVER_STARTED, job.created_ms, NEVER_STARTED);
    return at('running', 'starting', job.created_ms);
  }
  const token = clip(plainLine(endToken(job)), 40);
  if (job.exit_code === 0 && job.reason === null) return at('done', token, job.ended_ms);
  if (job.reason === 'stopped') return at('done', 'stopped', job.ended_ms);
  return at('attention', token, job.ended_ms, endReason(job));
}

function endReason(job: BoardJob): string {
  if (job.reason === WRAPPER_LOST) return 'its wrapper died without a final record';
  if (job.reason === 'timeout') return 'killed at its --timeout';
  if (job.reason === 'idle-timeout') return 'killed after --idle-timeout without output';
  if (job.reason?.startsWith(NEVER_STARTED)) return clip(plainLine(job.reason), TITLE_MAX);
  if (job.exit_code !== null) return `exited ${job.exit_code}`;
  if (job.signal !== null) return `killed by ${clip(plainLine(job.signal), 20)}`;
  return clip(plainLine(job.reason ?? 'ended without a status'), TITLE_MAX);
}

/**
 * An agent row (extension point; agents feed `agentPanes`):
 * - blocked: ATTENTION (it asks the owner); stalled: ATTENTION with the stall's age;
 * - working or unknown: RUNNING; idle or done without a done mark: ATTENTION `idle` (it may be
 *   waiting for an answer; only `dogsled done` hands a task back);
 * - a closed agent item: DONE with its receipt while items.json keeps it (its branch, if any, is a
 *   TO LAND row of its own instead: `toLand`); one closed before receipts were taken is gone.
 */
function agentRow(
  item: BoardItem,
  panes: ReadonlyMap<string, BoardAgentPane> | undefined,
  now: number,
): BoardRow | undefined {
  if (item.closed_ms !== null) return item.receipt === undefined ? undefined : finishedRow(item, now);
  const pane = item.pane === null ? undefined : panes?.get(item.pane);
  const name = clip(plainLine(item.name ?? pane?.name ?? item.id), 60);
  const harness = item.harness ?? pane?.agent;
  const model = pane?.model ?? item.model;
  const detail = [harness, model]
    .filter((part): part is string => Boolean(part))
    .map((p) => clip(plainLine(p), 60));
  const row = {
    ...blank('agent', item.id, 'running'),
    host: item.host,
    pane: item.pane,
    title: name,
    detail: detail.length > 0 ? detail.join(' · ') : null,
    item: item.id,
    ticket: item.ticket,
  };
  const since = pane?.state_since_ms ?? item.created_ms;
  const at = (group: BoardGroupId, state: string, from: number, reason: string | null = null) => ({
    ...row,
    group,
    state,
    since_ms: from,
    age_ms: ageOf(from, now),
    reason,
  });
  if (!pane) return at('running', 'unknown', item.created_ms);
  if (pane.stalled_since_ms !== null) {
    const stalled = pane.stalled_since_ms;
    return at('attention', 'stalled', stalled, `no transcript change for ${formatAge(now - stalled)}`);
  }
  if (pane.state === 'blocked') return at('attention', 'blocked', since, 'waiting for an answer');
  if (pane.state === 'idle' || pane.state === 'done') {
    return at('attention', pane.state, since, 'idle without dogsled done');
  }
  return at('running', pane.state === 'working' ? 'working' : 'unknown', since);
}

/** A child that finished (`done`), was closed, or whose pane went: DONE, with its receipt. */
function finishedRow(item: BoardItem, now: number): BoardRow {
  const closed = item.closed_ms ?? now;
  const detail = [item.harness, item.model].filter((part): part is string => Boolean(part));
  return {
    ...blank('agent', item.id, 'done'),
    host: item.host,
    pane: item.pane,
    title: clip(plainLine(item.name ?? item.id), 60),
    detail: detail.length > 0 ? detail.map((p) => clip(plainLine(p), 60)).join(' · ') : null,
    state: item.close_reason === 'done' ? 'finished' : clip(plainLine(item.close_reason ?? 'closed'), 40),
    since_ms: closed,
    age_ms: ageOf(closed, now),
    item: item.id,
    ticket: item.ticket,
    receipt: receiptText(item.receipt),
  };
}

/**
 * Ticket rows: pending is WAITING `queued` with its place in line (every owner's pending tickets,
 * oldest first, as admission takes them); admitting is WAITING `admitting`; failed is ATTENTION with
 * its error while queue.json keeps it (a day); admitted tickets show as their job, cancelled ones
 * not at all (the owner withdrew them).
 */
function ticketRows(input: BoardInput, now: number): BoardRow[] {
  const pending = input.tickets
    .filter((t) => t.state === 'pending')
    .sort((a, b) => a.created_ms - b.created_ms)
    .map((t) => t.id);
  const rows: BoardRow[] = [];
  for (const ticket of input.tickets) {
    if (ticket.owner !== input.owner) continue;
    const base = {
      ...blank('ticket', ticket.id, 'waiting'),
      host: ticket.host,
      title: ticket.agent
        ? clip(plainLine(`${ticket.agent.name} (${ticket.agent.kind})`), 80)
        : ticket.request
          ? commandTitle(ticket.request.command)
          : 'placement',
      detail: ticket.pin === null ? null : `pinned to ${clip(plainLine(ticket.pin), 60)}`,
      ticket: ticket.id,
    };
    if (ticket.state === 'pending') {
      const place = pending.indexOf(ticket.id) + 1;
      rows.push({
        ...base,
        state: 'queued',
        since_ms: ticket.created_ms,
        age_ms: ageOf(ticket.created_ms, now),
        place,
        reason: ticket.hold && isHeld(ticket, now) ? clip(plainLine(ticket.hold.reason), TITLE_MAX) : null,
      });
    } else if (ticket.state === 'admitting') {
      rows.push({
        ...base,
        state: 'admitting',
        since_ms: ticket.state_ms,
        age_ms: ageOf(ticket.state_ms, now),
      });
    } else if (ticket.state === 'failed') {
      rows.push({
        ...base,
        group: 'attention',
        state: 'failed',
        since_ms: ticket.state_ms,
        age_ms: ageOf(ticket.state_ms, now),
        reason: clip(plainLine(ticket.error ?? 'admission failed'), TITLE_MAX),
      });
    }
  }
  return rows;
}

/** `<child>: branch <b> +N to land`. */
function toLandRow(land: LandRow, now: number): BoardRow {
  const child = clip(plainLine(land.name), 60);
  const name = clip(plainLine(land.branch), 120);
  const what = [land.ahead > 0 ? `+${land.ahead}` : null, land.dirty ? 'dirty' : null]
    .filter(Boolean)
    .join(' ');
  return {
    ...blank('agent', land.item, 'to_land'),
    host: land.host,
    title: child,
    detail: `branch ${name}`,
    state: 'to land',
    since_ms: land.observed_ms,
    age_ms: ageOf(land.observed_ms, now),
    reason: `${child}: branch ${name} ${what} to land`,
    item: land.item,
  };
}

/** Rows of every group, in board order. */
export function boardRows(board: Board): BoardRow[] {
  return board.groups.flatMap((group) => group.rows);
}
