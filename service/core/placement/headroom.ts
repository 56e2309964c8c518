// Headroom and eligibility, the placement rules of the spec. Free cores are the smaller of what
// the host measures and what dogsled has promised; every refused condition is reported with the
// numbers behind it so `status --json` explains why a host takes no work.

import { coresWith, distinctBytes, distinctPair } from '../common/units.js';
import type { Probe } from './host-types.js';

/** Admission needs a snapshot at most this old, whatever the service's interval. */
export const SNAPSHOT_FRESH_MS = 30_000;
/** macOS kern.memorystatus_vm_pressure_level: 1 normal, 2 warn, 4 critical. */
export const PRESSURE_CRITICAL = 4;

export interface Policy {
  free_core_fraction_min: number;
  memory_reserve_bytes: number;
  disk_free_min_percent: number;
  reservation_load: number;
  reservation_ttl_ms: number;
}

export type ServiceState = 'up' | 'down' | 'unknown';

/** What one host's latest snapshot says, reduced to the numbers the rules use. */
export interface HostMeasure {
  sample_ms: number;
  os: string;
  cores: number;
  /** Fraction of the last interval the CPUs were busy; null until a second reading exists. */
  busy: number | null;
  memory_total_bytes: number;
  memory_free_bytes: number;
  disk_total_bytes: number;
  disk_free_bytes: number;
  pressure_level: number | null;
  live_agents: number;
  active_agents: number;
}

/** The numbers of a probe reading taken at `sampleMs` that the rules read. */
export function measureOf(sampleMs: number, probe: Probe): HostMeasure {
  return {
    sample_ms: sampleMs,
    os: probe.os,
    cores: probe.cores,
    busy: probe.busy,
    memory_total_bytes: probe.memory.total_bytes,
    memory_free_bytes: probe.memory.free_bytes,
    disk_total_bytes: probe.disk.total_bytes,
    disk_free_bytes: probe.disk.free_bytes,
    pressure_level: probe.pressure_level,
    live_agents: probe.agents.live,
    active_agents: probe.agents.active,
  };
}

export interface HostFacts {
  id: string;
  service: ServiceState;
  /** null when the host has never published a snapshot. */
  measure: HostMeasure | null;
  /** Live (unexpired) reservations on this host. */
  reservations: number;
}

// A type alias (not an interface) so it fits the loose zod record types of the state files.
export type Headroom = {
  free_cores: number | null;
  measured: number | null;
  declared: number | null;
  eligible: boolean;
  reason: string[];
  reservations: number;
  live_agents: number;
  active_agents: number;
};

export function headroomOf(facts: HostFacts, policy: Policy, now: number): Headroom {
  const { measure, reservations } = facts;
  if (!measure) {
    return {
      free_cores: null,
      measured: null,
      declared: null,
      eligible: false,
      reason: ['no snapshot: the service has not published on this host'],
      reservations,
      live_agents: 0,
      active_agents: 0,
    };
  }
  const load = policy.reservation_load;
  const declared = measure.cores - load * (measure.active_agents + reservations);
  const measured = measure.busy === null ? null : measure.cores * (1 - measure.busy) - load * reservations;
  const free_cores = measured === null ? declared : Math.min(measured, declared);
  const reason = refusals(facts.service, measure, free_cores, reservations, policy, now);
  return {
    free_cores,
    measured,
    declared,
    eligible: reason.length === 0,
    reason,
    reservations,
    live_agents: measure.live_agents,
    active_agents: measure.active_agents,
  };
}

function refusals(
  service: ServiceState,
  m: HostMeasure,
  freeCores: number,
  reservations: number,
  policy: Policy,
  now: number,
): string[] {
  const reasons: string[] = [];
  const age = now - m.sample_ms;
  if (service === 'down') reasons.push('service down: no process holds the service lock');
  if (age > SNAPSHOT_FRESH_MS) {
    reasons.push(
      `stale: snapshot is ${Math.round(age / 1000)}s old, admission needs ${SNAPSHOT_FRESH_MS / 1000}s`,
    );
  }
  if (m.busy === null) reasons.push('no cpu sample: the service has measured only once since it started');

  const diskPercent = m.disk_total_bytes > 0 ? (100 * m.disk_free_bytes) / m.disk_total_bytes : 0;
  if (diskPercent < policy.disk_free_min_percent) {
    // The threshold as the policy writes it; the measured share with enough decimals to differ.
    const needed = policy.disk_free_min_percent;
    const [free] = distinctPair(diskPercent, needed, (value, decimals) => value.toFixed(decimals));
    reasons.push(`disk: ${free}% free, needs ${needed}%`);
  }
  if (m.os === 'darwin' && m.pressure_level !== null && m.pressure_level >= PRESSURE_CRITICAL) {
    reasons.push('memory pressure: critical');
  }
  const freeNeeded = policy.memory_reserve_bytes * (reservations + 1);
  if (m.memory_free_bytes < freeNeeded) {
    const [free, needed] = distinctBytes(m.memory_free_bytes, freeNeeded);
    reasons.push(`memory: ${free} free, needs ${needed} (reserve for ${reservations + 1})`);
  }
  const slots = m.active_agents + reservations + 1;
  const totalNeeded = policy.memory_reserve_bytes * slots;
  if (m.memory_total_bytes < totalNeeded) {
    const [total, needed] = distinctBytes(m.memory_total_bytes, totalNeeded);
    reasons.push(`memory: ${total} total, needs ${needed} (reserve for ${slots})`);
  }
  const coresNeeded = policy.free_core_fraction_min * m.cores;
  if (freeCores < coresNeeded) {
    const [free, needed] = distinctPair(freeCores, coresNeeded, coresWith);
    reasons.push(`cpu: ${free} free cores, needs ${needed}`);
  }
  return reasons;
}
