// A host as `status` reports it (HostView), for the renderers' unit tests: a reachable host with a
// fresh sample, half busy, one agent, eligible.
import type { HostView } from '../../service/hosts/view.js';

const GIB = 1024 ** 3;

/** `disk` replaces the probe's disk (path, total and free bytes). */
export function hostViewFixture(
  label: string,
  busy = 0.5,
  disk: { path: string; total_bytes: number; free_bytes: number } = {
    path: '/home/x',
    total_bytes: 100 * GIB,
    free_bytes: 40 * GIB,
  },
): HostView {
  return {
    id: label,
    label,
    hostname: label,
    local: label === 'local',
    service: 'up',
    reachable: true,
    unreachable: null,
    sample_ms: 0,
    age_ms: 1_000,
    interval_ms: 10_000,
    probe: {
      os: 'linux',
      cores: 4,
      load1: 1,
      cpu_ticks: null,
      busy,
      memory: {
        total_bytes: 16 * GIB,
        used_bytes: 4 * GIB,
        free_bytes: 12 * GIB,
        scope: 'host',
        cgroup: null,
        limit_bytes: null,
      },
      pressure_level: null,
      disk,
      agents: { live: 1, active: 1 },
    },
    headroom: {
      free_cores: 2,
      measured: 2,
      declared: 3,
      eligible: true,
      reason: [],
      reservations: 0,
      live_agents: 1,
      active_agents: 1,
    },
    reservations: [],
    errors: [],
    retry_ms: null,
    facts: null,
  };
}
