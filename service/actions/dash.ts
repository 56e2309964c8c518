// `dogsled dash`'s read and its two verbs. The read gathers, from cached state only (never a probe,
// never a peer over SSH), what the page draws: every host as the sidebar sees it with its busy and
// memory over the last day (this host's from samples.jsonl; a peer's as its cached snapshots came in
// while the page ran), each owner's board from the board's own reader, history with its receipts,
// and the day's spend beside any budget. A file that cannot be read is a problem line, never a
// crash. The verbs are the CLI's own: Stop is `stop` (stopJobRef), Close is `close` (closePane),
// refused here for a pane that is no open child.

import { readBoard } from '../board/read-board.js';
import type { Board } from '../core/board/board-rule.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import type { HistoryEntry } from '../core/history/history-entry.js';
import { type BudgetLine, budgetActive, budgetLines, daySpend } from '../core/receipts/day-budget.js';
import { priceTable } from '../core/receipts/prices.js';
import type { Receipt } from '../core/receipts/receipt.js';
import { RunningCosts, readChildSpends } from '../history/day-spend.js';
import { HistoryCache, type HistoryRead } from '../history/history-file.js';
import { localView, readLocalFacts } from '../hosts/local-facts.js';
import { cachedPeerHosts } from '../hosts/peers.js';
import type { HostIO } from '../state/io.js';
import type { StatePaths } from '../state/paths.js';
import { readItems, readQueue } from '../state/records/queue-items.js';
import { localDay } from '../time/local-day.js';
import { closePane } from './close.js';
import { type HistoryPoint, SamplesHistory } from './samples-history.js';
import { type SidebarHost, sidebarHost } from './sidebar-state.js';
import { type StopRefOutcome, stopJobRef } from './stop.js';
import type { LazyHostIO } from './verb-io.js';

export type { CloseResult } from '../agents/close-child.js';
export type { Board, BoardRow } from '../core/board/board-rule.js';
export type { HistoryEntry } from '../core/history/history-entry.js';
export type { HistoryStats } from '../core/history/history-stats.js';
export type { BudgetLine } from '../core/receipts/day-budget.js';
export type { Receipt } from '../core/receipts/receipt.js';
export type { HistoryPoint } from './samples-history.js';
export type { StopRefOutcome };

/** A day of points, and a few minutes' slack for a chart's left edge. */
const POINTS_KEEP_MS = 24 * 3_600_000 + 5 * 60_000;
/** A peer's points while the page runs: one per snapshot it published, at most a day at 1 s. */
const PEER_POINTS_MAX = 86_400;
/** Finished children shown with their receipts, newest first. */
const RECEIPTS_MAX = 100;

export interface DashHost extends SidebarHost {
  /** Busy and memory (fractions) over the last day, oldest first. */
  points: HistoryPoint[];
  /** Where the points came from: this host's samples.jsonl, or what the page saw since it started. */
  points_from: 'samples' | 'page';
}

/** A finished child and its receipt (from history.jsonl, or an item closed since its last pass). */
export interface DashReceipt {
  id: string;
  name: string;
  host: string;
  owner: string | null;
  harness: string | null;
  outcome: string;
  ended_ms: number;
  receipt: Receipt | null;
}

export interface DashState {
  now_ms: number;
  hosts: DashHost[];
  /** Each owner's board, by owner. */
  boards: Board[];
  /** Every history entry, oldest first (the page filters and sums them). */
  history: HistoryEntry[];
  receipts: DashReceipt[];
  /** The day's spend beside each budget; empty without `[budget]` and without spend. */
  budget: BudgetLine[];
  budget_active: boolean;
  prices_as_of: string;
  /** Read problems, one line each. */
  problems: string[];
}

/** What a page keeps between reads: the samples read so far, the peers' points, the parsed history. */
export class DashMemory {
  readonly samples: SamplesHistory;
  readonly history = new HistoryCache();
  readonly costs = new RunningCosts();
  readonly peerPoints = new Map<string, HistoryPoint[]>();

  constructor(paths: StatePaths) {
    this.samples = new SamplesHistory(paths.samples);
  }
}

/** The files the page's read depends on, for a front end that reads again when one changes. */
export function dashReads(paths: StatePaths): { files: string[]; peers: string } {
  return {
    files: [
      paths.host,
      paths.items,
      paths.queue,
      paths.placements,
      paths.history,
      paths.branches,
      paths.boardSeen,
      paths.done,
    ],
    peers: paths.peers,
  };
}

/** The job records the page's running rows depend on (a job's end changes only its record). */
export function dashJobFiles(paths: StatePaths, state: DashState): string[] {
  const ids = new Set<string>();
  for (const board of state.boards)
    for (const group of board.groups)
      if (group.id !== 'done') for (const row of group.rows) if (row.job !== null) ids.add(row.job);
  return [...ids].map((id) => `${paths.jobs}/${id}.json`);
}

export async function readDashState(io: LazyHostIO, memory: DashMemory): Promise<DashState> {
  const problems: string[] = [];
  const note = (what: string) => (error: unknown) => {
    problems.push(`${what}: ${messageOf(error)}`);
  };
  const host: HostIO = {
    ...(await io.hostIO()),
    warn: (line: string) => {
      problems.push(line.replace(/^dogsled: (warning: )?/, ''));
    },
  };
  const now = host.now();
  const [hosts, boards, history] = await Promise.all([
    readHosts(host, memory, now).catch((error: unknown) => {
      note('hosts')(error);
      return [];
    }),
    readBoards(host).catch((error: unknown) => {
      note('boards')(error);
      return [];
    }),
    memory.history.read(host).catch((error: unknown): HistoryRead => {
      note('history')(error);
      return { entries: [], skipped: 0 };
    }),
  ]);
  const receipts = await readReceipts(host, history.entries).catch((error: unknown) => {
    note('receipts')(error);
    return [];
  });
  const policy = host.config.budget;
  const budget = await readChildSpends(host, memory.costs, history)
    .then((spends) =>
      budgetLines(
        daySpend(spends, localDay(now)),
        policy,
        hosts.map((h) => h.id),
      ),
    )
    .catch((error: unknown) => {
      note('budget')(error);
      return [];
    });
  return {
    now_ms: now,
    hosts,
    boards,
    history: history.entries,
    receipts,
    budget,
    budget_active: budgetActive(policy),
    prices_as_of: priceTable(host.config.prices).as_of,
    problems,
  };
}

async function readHosts(io: HostIO, memory: DashMemory, now: number): Promise<DashHost[]> {
  const [facts, points, peers] = await Promise.all([
    readLocalFacts(io),
    memory.samples.read(now),
    cachedPeerHosts(io),
  ]);
  const local = localView(facts, io.config, now);
  const hosts: DashHost[] = [
    { ...sidebarHost(local, [], facts.snapshot?.jobs ?? []), points: [...points], points_from: 'samples' },
  ];
  const seen = new Set<string>();
  for (const peer of peers) {
    const view = sidebarHost(peer, [], []);
    seen.add(peer.id);
    hosts.push({ ...view, points: peerPoints(memory, view, now), points_from: 'page' });
  }
  for (const id of memory.peerPoints.keys()) if (!seen.has(id)) memory.peerPoints.delete(id);
  return hosts;
}

/** The peer's points so far, with its current snapshot's added when it is a new one. */
function peerPoints(memory: DashMemory, host: SidebarHost, now: number): HistoryPoint[] {
  const points = memory.peerPoints.get(host.id) ?? [];
  const probe = host.probe;
  if (probe !== null && host.age_ms !== null) {
    const ts = now - host.age_ms;
    const last = points.at(-1);
    // The same snapshot read again lands within a few ms of the last point: one point per snapshot.
    if (last === undefined || ts - last.ts_ms > 500) {
      const total = probe.memory.total_bytes;
      points.push({
        ts_ms: ts,
        busy: probe.busy,
        memory_used: total > 0 ? (total - probe.memory.free_bytes) / total : null,
      });
    }
  }
  const since = now - POINTS_KEEP_MS;
  const kept = points.filter((point) => point.ts_ms >= since).slice(-PEER_POINTS_MAX);
  memory.peerPoints.set(host.id, kept);
  return kept;
}

/** Every owner with items or tickets here, each with its board. */
async function readBoards(io: HostIO): Promise<Board[]> {
  const [items, queue] = await Promise.all([readItems(io), readQueue(io)]);
  const owners = new Set<string>();
  for (const item of items.items) if (item.owner) owners.add(item.owner);
  for (const ticket of queue.tickets) if (ticket.owner) owners.add(ticket.owner);
  const sorted = [...owners].sort();
  return Promise.all(sorted.map((owner) => readBoard(io, owner)));
}

/** Finished children, newest first: history's, and items closed since history's last pass. */
async function readReceipts(io: HostIO, history: readonly HistoryEntry[]): Promise<DashReceipt[]> {
  const receipts: DashReceipt[] = [];
  const seen = new Set<string>();
  for (const entry of history) {
    if (entry.kind !== 'agent' || seen.has(entry.id)) continue;
    seen.add(entry.id);
    receipts.push({
      id: entry.id,
      name: entry.name,
      host: entry.host,
      owner: entry.owner,
      harness: entry.harness,
      outcome: entry.outcome,
      ended_ms: entry.ended_ms,
      receipt: entry.receipt,
    });
  }
  for (const item of (await readItems(io)).items) {
    if (item.kind !== 'agent' || item.closed_ms === null || seen.has(item.id) || item.receipt === undefined)
      continue;
    seen.add(item.id);
    receipts.push({
      id: item.id,
      name: item.name ?? item.id,
      host: item.host,
      owner: item.owner,
      harness: item.harness ?? null,
      outcome: item.close_reason === 'done' ? 'finished' : (item.close_reason ?? 'closed'),
      ended_ms: item.closed_ms,
      receipt: item.receipt,
    });
  }
  return receipts.sort((a, b) => b.ended_ms - a.ended_ms).slice(0, RECEIPTS_MAX);
}

const JOB_REF = /^[jt]_[a-z2-7]{12}$/;

/** Stop, from the page: the CLI's `stop` for a job (or the ticket that started it). */
export async function dashStop(io: LazyHostIO, ref: string): Promise<StopRefOutcome> {
  if (!JOB_REF.test(ref)) throw new DogsledError('stop: not a job id');
  return stopJobRef(io, ref);
}

/**
 * Close, from the page: the CLI's `close` for a pane that is an open child's here (the page closes
 * children, not any pane a request names), on the host its item names.
 */
export async function dashClose(io: LazyHostIO, pane: string, host: string | null) {
  const hostIO = await io.hostIO();
  const items = (await readItems(hostIO)).items;
  const child = items.find(
    (item) =>
      item.kind === 'agent' &&
      item.closed_ms === null &&
      item.pane === pane &&
      (host === null || item.host === host),
  );
  if (child === undefined) throw new DogsledError(`close: no open child in pane ${JSON.stringify(pane)}`);
  return closePane(hostIO, pane, child.host);
}
