// `sidebar`'s read, from cached state only: every host the status reader knows (this host, then each
// enabled peer from the peer cache, never read over SSH here) with this host's busy history from
// samples.jsonl, the owner's board, and the owner's todo publication: the SidebarState the sidebar's
// pure model (sidebar/model) draws. It never probes a host and never writes. A file that cannot be
// read becomes a problem line, never a crash.

import { readBoard } from '../board/read-board.js';
import type { Board } from '../core/board/board-rule.js';
import type { TodoLines } from '../core/board/board-types.js';
import { messageOf } from '../core/common/errors.js';
import type { HostFacts } from '../core/fleet/fleet-types.js';
import type { JobSummary } from '../core/jobs/job-types.js';
import { localView, readLocalFacts } from '../hosts/local-facts.js';
import { cachedPeerHosts } from '../hosts/peers.js';
import type { HostView } from '../hosts/view.js';
import { openRegular, readRegular } from '../state/engine/regular-file.js';
import type { HostIO } from '../state/io.js';
import type { StatePaths } from '../state/paths.js';
import { readTodoLines, todoLinesFile } from '../state/records/sidebar-files.js';
import { glanceBoard } from './board-glance.js';

export type { TodoLines, TodoSection } from '../core/board/board-types.js';
export type { HostFacts } from '../core/fleet/fleet-types.js';

export interface SidebarHost {
  id: string;
  label: string;
  local: boolean;
  reachable: boolean;
  service: 'up' | 'down' | 'unknown';
  eligible: boolean;
  age_ms: number | null;
  reservations: number;
  /** Why it takes no work (the headroom reasons `status` lists), empty when eligible. */
  reason: string[];
  free_cores: number | null;
  /** Why the last read of a peer failed; null when it answered. */
  unreachable: string | null;
  /** Its live reservations, its agent panes and its jobs, for the detail view. */
  reserved: Array<{ id: string; expires_ms: number; owner: string | null }>;
  agents: Array<{ pane: string; agent: string; state: string; name: string | null; model: string | null }>;
  jobs: SidebarJob[];
  probe: {
    cores: number;
    busy: number | null;
    load1: number;
    memory: { total_bytes: number; free_bytes: number };
    disk: { total_bytes: number; free_bytes: number };
  } | null;
  /** Busy fractions of the last samples, oldest first (null: no CPU sample then). */
  busy_history: Array<number | null>;
  /** What the host is (OS, CPU, memory, GPUs), as `status` shows it; absent until its service read it. */
  facts?: HostFacts | null;
}

/** A job on a host, as its snapshot publishes it (running ones, and ended ones for a day). */
export interface SidebarJob {
  id: string;
  command: string[];
  owner: string | null;
  started_ms: number | null;
  ended_ms: number | null;
  exit_code: number | null;
  signal: string | null;
  reason: string | null;
}

/**
 * The owner's todos: Pi's publication, or why it cannot be used (a FIFO, another pane's), or no
 * publication at all (reason null: no Pi todos here, and no panel is drawn for them).
 */
export type TodoView = { available: true; lines: TodoLines } | { available: false; reason: string | null };

export interface Thresholds {
  memory_reserve_bytes: number;
  disk_free_min_percent: number;
}

export interface SidebarState {
  owner: string;
  hosts: SidebarHost[];
  /** null when it could not be read; `problems` says why. */
  board: Board | null;
  todos: TodoView;
  thresholds: Thresholds;
  /** Read problems, one line each, shown at the top of the panel they concern. */
  problems: string[];
  /** When it was read: ages drawn later move on from it without reading again (absent: now). */
  read_ms?: number;
}

/** The tail of samples.jsonl read for sparklines: ~50 lines of ~300 bytes. */
const SAMPLES_TAIL_BYTES = 16 * 1024;
const HISTORY = 24;

export interface SidebarSources {
  owner: string;
  /** The SIDEBAR_HOSTS knob: hosts from a fixture file (core/common/test-knobs.ts). */
  fixtureHosts?: string | undefined;
}

/** What readSidebarState reads, for a front end that refreshes when one of them changes. */
export interface SidebarReads {
  files: string[];
  /** The peer cache: a directory of one .json file per peer. */
  peers: string;
}

export function sidebarReads(paths: StatePaths, owner: string): SidebarReads {
  return {
    files: [
      paths.host,
      paths.items,
      paths.queue,
      paths.samples,
      paths.placements,
      paths.branches,
      paths.boardSeen,
      todoLinesFile(paths, owner),
    ],
    peers: paths.peers,
  };
}

export async function readSidebarState(io: HostIO, sources: SidebarSources): Promise<SidebarState> {
  const problems: string[] = [];
  const quiet: HostIO = { ...io, warn: (line) => problems.push(line.replace(/^dogsled: (warning: )?/, '')) };
  const [hosts, board, todos] = await Promise.all([
    readHosts(quiet, sources).catch((error: unknown) => {
      problems.push(`hosts: ${messageOf(error)}`);
      return [];
    }),
    ownerBoard(quiet, sources.owner).catch((error: unknown) => {
      problems.push(`board: ${messageOf(error)}`);
      return null;
    }),
    readTodos(quiet, sources.owner),
  ]);
  return {
    owner: sources.owner,
    hosts,
    board,
    todos,
    thresholds: {
      memory_reserve_bytes: io.config.memory_reserve_bytes,
      disk_free_min_percent: io.config.disk_free_min_percent,
    },
    problems,
    read_ms: io.now(),
  };
}

/**
 * The owner's board as `board --json`'s lean path reads it (each file once, synchronously, checked by
 * hand: 200 rows' records are most of a first paint's read through zod), else, for whatever that
 * doubts (a TO LAND row, a file to quarantine or word a warning about), as readBoard reads it.
 */
async function ownerBoard(io: HostIO, owner: string): Promise<Board> {
  return glanceBoard(io, owner) ?? readBoard(io, owner);
}

async function readHosts(io: HostIO, sources: SidebarSources): Promise<SidebarHost[]> {
  if (sources.fixtureHosts) {
    const text = await readRegular(sources.fixtureHosts);
    const hosts =
      text === undefined ? [] : ((JSON.parse(text) as { hosts: Partial<SidebarHost>[] }).hosts ?? []);
    return hosts.map(fixtureHost);
  }
  const [facts, history, peers] = await Promise.all([
    readLocalFacts(io),
    busyHistory(io.paths.samples),
    cachedPeerHosts(io),
  ]);
  const local = localView(facts, io.config, io.now());
  // A peer's busy history is its host's samples.jsonl, which the cache does not carry.
  return [
    sidebarHost(local, history, facts.snapshot?.jobs ?? []),
    ...peers.map((peer) => sidebarHost(peer, [], [])),
  ];
}

export function sidebarHost(
  view: HostView,
  history: Array<number | null>,
  jobs: readonly JobSummary[],
): SidebarHost {
  return {
    id: view.id,
    label: view.label,
    local: view.local,
    reachable: view.reachable,
    service: view.service,
    eligible: view.headroom.eligible,
    age_ms: view.age_ms,
    reservations: view.reservations.length,
    reason: view.headroom.reason,
    free_cores: view.headroom.free_cores,
    unreachable: view.unreachable,
    reserved: view.reservations.map((r) => ({ id: r.id, expires_ms: r.expires_ms, owner: r.owner })),
    agents: (view.probe?.agent_panes ?? []).map((a) => ({
      pane: a.pane,
      agent: a.agent,
      state: a.state,
      name: a.name,
      model: a.model,
    })),
    jobs: jobs.map((j) => ({
      id: j.id,
      command: [...j.command],
      owner: j.owner ?? null,
      started_ms: j.started_ms,
      ended_ms: j.ended_ms,
      exit_code: j.exit_code,
      signal: j.signal,
      reason: j.reason,
    })),
    probe: view.probe,
    busy_history: history,
    facts: view.facts,
  };
}

/** A test fixture's host (DOGSLED_TEST_SIDEBAR_HOSTS), with what it leaves out as an eligible host has it. */
function fixtureHost(host: Partial<SidebarHost>): SidebarHost {
  return {
    id: 'local',
    label: 'local',
    local: false,
    reachable: true,
    service: 'up',
    eligible: true,
    age_ms: null,
    reservations: 0,
    reason: [],
    free_cores: null,
    unreachable: null,
    reserved: [],
    agents: [],
    jobs: [],
    probe: null,
    busy_history: [],
    ...host,
  };
}

/** Busy fractions of the last samples, oldest first; a missing or unreadable file has none. */
export async function busyHistory(file: string): Promise<Array<number | null>> {
  let text: string;
  let cut = false;
  try {
    const handle = await openRegular(file);
    if (handle === undefined) return [];
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, SAMPLES_TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      text = buffer.toString('utf8');
      cut = size > length;
    } finally {
      await handle.close().catch(() => undefined);
    }
  } catch {
    return [];
  }
  const lines = text.split('\n');
  if (cut) lines.shift(); // read from the middle of a line
  const history: Array<number | null> = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const busy = (JSON.parse(line) as { busy?: unknown }).busy;
      history.push(typeof busy === 'number' && Number.isFinite(busy) ? busy : null);
    } catch {
      // A torn line: skipped, as the service itself drops it at the next trim.
    }
  }
  return history.slice(-HISTORY);
}

async function readTodos(io: HostIO, owner: string): Promise<TodoView> {
  const read = await readTodoLines(io.paths, owner);
  if (read.kind === 'ok') return { available: true, lines: read.lines };
  if (read.kind === 'missing') return { available: false, reason: null };
  return { available: false, reason: read.reason };
}
