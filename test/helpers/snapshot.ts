// Builders for host.json fixtures, so CLI tests control exactly what the host "measured".

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentPane } from '../../service/core/agents/agent-pane-types.js';
import type { HostSnapshot } from '../../service/core/placement/host-types.js';

const GIB = 1024 ** 3;

export interface SnapshotShape {
  sample_ms: number;
  cores?: number;
  busy?: number | null;
  memoryFreeGiB?: number;
  memoryTotalGiB?: number;
  diskFreePercent?: number;
}

export function snapshotFixture(shape: SnapshotShape): HostSnapshot {
  const cores = shape.cores ?? 8;
  const total = (shape.memoryTotalGiB ?? 64) * GIB;
  const free = (shape.memoryFreeGiB ?? 48) * GIB;
  const diskTotal = 1000 * GIB;
  return {
    version: 1,
    host: { id: 'local', label: 'local', hostname: 'fixture-host' },
    sample_ms: shape.sample_ms,
    liveness: {
      pid: process.pid,
      started_ms: shape.sample_ms - 60_000,
      interval_ms: 10_000,
      version: 'test',
    },
    probe: {
      os: 'linux',
      cores,
      load1: 0.5,
      cpu_ticks: { total: 1_000_000, idle: 900_000 },
      busy: shape.busy === undefined ? 0 : shape.busy,
      memory: {
        total_bytes: total,
        used_bytes: total - free,
        free_bytes: free,
        scope: 'host',
        cgroup: null,
        limit_bytes: null,
      },
      pressure_level: null,
      disk: {
        path: '/home/fixture',
        total_bytes: diskTotal,
        free_bytes: (diskTotal * (shape.diskFreePercent ?? 50)) / 100,
      },
      agents: { live: 0, active: 0 },
    },
    headroom: {
      free_cores: cores,
      measured: cores,
      declared: cores,
      eligible: true,
      reason: [],
      reservations: 0,
      live_agents: 0,
      active_agents: 0,
    },
    errors: [],
  };
}

export async function writeSnapshot(stateDir: string, snapshot: HostSnapshot): Promise<void> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  await writeFile(join(stateDir, 'host.json'), JSON.stringify(snapshot), { mode: 0o600 });
}

/** One agent pane of a snapshot's probe.agent_panes: Claude, `state` since `since_ms`, no transcript. */
export function agentPaneFixture(
  pane: string,
  state: string,
  since_ms: number,
  over: Partial<AgentPane> = {},
): AgentPane {
  return {
    pane,
    agent: 'claude',
    state,
    name: null,
    transcript: null,
    transcript_modified: null,
    terminal_id: `term_${pane.replace(':', '_')}`,
    completion_seq: 0,
    cwd: null,
    model: null,
    activity: null,
    branch: null,
    ahead: null,
    dirty: null,
    landed: null,
    stalled_since_ms: null,
    state_since_ms: since_ms,
    ...over,
  };
}
