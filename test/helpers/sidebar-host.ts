// A host as the sidebar's model takes it (SidebarHost), for its unit tests: this host, reachable,
// its service up, eligible, a quarter busy on 8 cores, nothing reserved or running. A test names
// only what it changes.
import type { SidebarHost } from '../../sidebar/model/types.js';

const GIB = 1024 ** 3;

export function sidebarHost(extra: Partial<SidebarHost> = {}): SidebarHost {
  return {
    id: 'local',
    label: 'local',
    local: true,
    reachable: true,
    service: 'up',
    eligible: true,
    age_ms: 2000,
    reservations: 0,
    reason: [],
    free_cores: 6,
    unreachable: null,
    reserved: [],
    agents: [],
    jobs: [],
    probe: {
      cores: 8,
      busy: 0.25,
      load1: 2,
      memory: { total_bytes: 32 * GIB, free_bytes: 20 * GIB },
      disk: { total_bytes: 500 * GIB, free_bytes: 200 * GIB },
    },
    busy_history: [],
    ...extra,
  };
}
