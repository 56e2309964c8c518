// What the sidebar reads on each refresh, from cached state only: every host the status reader
// knows (this host, then each enabled peer from the peer cache, never read over SSH here) with this
// host's busy history from samples.jsonl, the owner's board, and the owner's todo publication. It never probes a host
// and never writes. A file that cannot be read becomes a problem line, never a crash.

import { readBoard } from '../service/board/read-board.js';
import { messageOf } from '../service/core/common/errors.js';
import type { JobSummary } from '../service/core/jobs/job-types.js';
import { localView, readLocalFacts } from '../service/hosts/local-facts.js';
import { cachedPeerHosts } from '../service/hosts/peers.js';
import type { HostView } from '../service/hosts/view.js';
import { openRegular, readRegular } from '../service/state/engine/regular-file.js';
import type { HostIO } from '../service/state/io.js';
import { readTodoLines } from '../service/state/records/sidebar-files.js';
import type { SidebarHost, SidebarState, TodoView } from './model/types.js';

/** The tail of samples.jsonl read for sparklines: ~50 lines of ~300 bytes. */
const SAMPLES_TAIL_BYTES = 16 * 1024;
const HISTORY = 24;

export interface SidebarSources {
  owner: string;
  /** The SIDEBAR_HOSTS knob: hosts from a fixture file (core/common/test-knobs.ts). */
  fixtureHosts?: string | undefined;
}

export async function readSidebarState(io: HostIO, sources: SidebarSources): Promise<SidebarState> {
  const problems: string[] = [];
  const quiet: HostIO = { ...io, warn: (line) => problems.push(line.replace(/^dogsled: (warning: )?/, '')) };
  const [hosts, board, todos] = await Promise.all([
    readHosts(quiet, sources).catch((error: unknown) => {
      problems.push(`hosts: ${messageOf(error)}`);
      return [];
    }),
    readBoard(quiet, sources.owner).catch((error: unknown) => {
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
