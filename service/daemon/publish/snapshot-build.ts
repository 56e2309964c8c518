// Assembles one host.json snapshot and its samples.jsonl line from a probe reading. Pure: the
// publication loop supplies the reading, the previous CPU ticks and the clock.

import { agentCounts } from '../../core/agents/agent-pane-clocks.js';
import type { AgentPane } from '../../core/agents/agent-pane-types.js';
import type { HostFacts } from '../../core/fleet/fleet-types.js';
import type { JobSummary } from '../../core/jobs/job-types.js';
import { busyBetween, type CpuTicks } from '../../core/placement/cpu-busy.js';
import { headroomOf, measureOf, type Policy } from '../../core/placement/headroom.js';
import type { HostSnapshot, Probe, Sample } from '../../core/placement/host-types.js';
import type { HostProbe } from '../../probe/index.js';

export interface SnapshotInput {
  reading: HostProbe;
  previousTicks: CpuTicks | null;
  identity: { id: string; label: string; hostname: string };
  liveness: HostSnapshot['liveness'];
  reservations: number;
  agentPanes: AgentPane[];
  /** The backend the agent lane read through, when it has opened one. */
  terminal?: { kind: string; why: string } | undefined;
  jobs: JobSummary[];
  errors: string[];
  policy: Policy;
  now: number;
  /** What the host is (read once at start); null until then. */
  facts?: HostFacts | null;
}

export function composeSnapshot(input: SnapshotInput): HostSnapshot {
  const { reading, now } = input;
  const busy = reading.cpu_ticks ? busyBetween(input.previousTicks, reading.cpu_ticks) : reading.busy_direct;
  const probe: Probe = {
    os: reading.os,
    cores: reading.cores,
    load1: reading.load1,
    cpu_ticks: reading.cpu_ticks,
    busy,
    memory: reading.memory,
    pressure_level: reading.pressure_level,
    disk: reading.disk,
    agents: agentCounts(input.agentPanes),
    agent_panes: input.agentPanes,
    ...(input.terminal ? { terminal: input.terminal } : {}),
  };
  const facts = { id: input.identity.id, service: 'up' as const, reservations: input.reservations };
  return {
    version: 1,
    host: input.identity,
    sample_ms: now,
    liveness: input.liveness,
    probe,
    headroom: headroomOf({ ...facts, measure: measureOf(now, probe) }, input.policy, now),
    errors: input.errors,
    jobs: input.jobs,
    facts: input.facts ?? null,
  };
}

export function sampleOf(snapshot: HostSnapshot): Sample {
  const { probe, headroom } = snapshot;
  return {
    ts_ms: snapshot.sample_ms,
    cores: probe.cores,
    busy: probe.busy,
    load1: probe.load1,
    memory: {
      total_bytes: probe.memory.total_bytes,
      used_bytes: probe.memory.used_bytes,
      free_bytes: probe.memory.free_bytes,
    },
    pressure_level: probe.pressure_level,
    disk: { total_bytes: probe.disk.total_bytes, free_bytes: probe.disk.free_bytes },
    reservations: headroom.reservations,
    live_agents: headroom.live_agents,
    active_agents: headroom.active_agents,
    free_cores: headroom.free_cores,
    eligible: headroom.eligible,
    reason: headroom.reason,
  };
}
