import { describe, expect, it } from 'vitest';
import {
  type HostFacts,
  type HostMeasure,
  headroomOf,
  type Policy,
} from '../../../../service/core/placement/headroom.js';

const GIB = 1024 ** 3;
const NOW = 1_800_000_000_000;

const policy: Policy = {
  free_core_fraction_min: 0.25,
  memory_reserve_bytes: 3 * GIB,
  disk_free_min_percent: 15,
  reservation_load: 1,
  reservation_ttl_ms: 90_000,
};

function measure(overrides: Partial<HostMeasure> = {}): HostMeasure {
  return {
    sample_ms: NOW - 2_000,
    os: 'linux',
    cores: 12,
    busy: 0.25,
    memory_total_bytes: 64 * GIB,
    memory_free_bytes: 40 * GIB,
    disk_total_bytes: 1000 * GIB,
    disk_free_bytes: 500 * GIB,
    pressure_level: null,
    live_agents: 0,
    active_agents: 0,
    ...overrides,
  };
}

function facts(m: Partial<HostMeasure> = {}, more: Partial<HostFacts> = {}): HostFacts {
  return { id: 'local', service: 'up', measure: measure(m), reservations: 0, ...more };
}

describe('headroom arithmetic', () => {
  it('takes the measured value when it is smaller than the declared one', () => {
    const h = headroomOf(facts({ busy: 0.5 }), policy, NOW);
    expect(h.measured).toBe(6);
    expect(h.declared).toBe(12);
    expect(h.free_cores).toBe(6);
    expect(h.eligible).toBe(true);
    expect(h.reason).toEqual([]);
  });

  it('takes the declared value when active agents promise more than the CPUs show', () => {
    const h = headroomOf(facts({ busy: 0, live_agents: 9, active_agents: 7 }), policy, NOW);
    expect(h.measured).toBe(12);
    expect(h.declared).toBe(5);
    expect(h.free_cores).toBe(5);
  });

  it('charges each reservation reservation_load cores in both values', () => {
    const h = headroomOf(facts({ busy: 0.25, active_agents: 2 }, { reservations: 3 }), policy, NOW);
    expect(h.measured).toBe(12 * 0.75 - 3);
    expect(h.declared).toBe(12 - (2 + 3));
    expect(h.free_cores).toBe(6);
    expect(h.reservations).toBe(3);
  });

  it('scales the charge by reservation_load', () => {
    const h = headroomOf(facts({ busy: 0 }, { reservations: 2 }), { ...policy, reservation_load: 2.5 }, NOW);
    expect(h.measured).toBe(7);
    expect(h.declared).toBe(7);
  });

  it('idle live agents do not count in the declared value', () => {
    const h = headroomOf(facts({ busy: 0, live_agents: 6, active_agents: 1 }), policy, NOW);
    expect(h.declared).toBe(11);
    expect(h.live_agents).toBe(6);
  });
});

describe('eligibility, one condition at a time', () => {
  it('refuses a host that never published', () => {
    const h = headroomOf({ id: 'x', service: 'down', measure: null, reservations: 0 }, policy, NOW);
    expect(h.eligible).toBe(false);
    expect(h.free_cores).toBeNull();
    expect(h.reason[0]).toMatch(/^no snapshot/);
  });

  it('refuses a snapshot older than 30 seconds even from a running service', () => {
    expect(headroomOf(facts({ sample_ms: NOW - 30_000 }), policy, NOW).eligible).toBe(true);
    const h = headroomOf(facts({ sample_ms: NOW - 30_001 }), policy, NOW);
    expect(h.eligible).toBe(false);
    expect(h.reason).toEqual(['stale: snapshot is 30s old, admission needs 30s']);
  });

  it('refuses a host whose service is down', () => {
    const h = headroomOf(facts({}, { service: 'down' }), policy, NOW);
    expect(h.reason).toEqual(['service down: no process holds the service lock']);
  });

  it('refuses a snapshot without a CPU sample', () => {
    const h = headroomOf(facts({ busy: null }), policy, NOW);
    expect(h.eligible).toBe(false);
    expect(h.measured).toBeNull();
    expect(h.free_cores).toBe(12);
    expect(h.reason).toEqual(['no cpu sample: the service has measured only once since it started']);
  });

  it('needs disk_free_min_percent free on the home filesystem', () => {
    expect(headroomOf(facts({ disk_free_bytes: 150 * GIB }), policy, NOW).eligible).toBe(true);
    const h = headroomOf(facts({ disk_free_bytes: 149 * GIB }), policy, NOW);
    expect(h.reason).toEqual(['disk: 14.9% free, needs 15%']);
  });

  it('refuses critical memory pressure on macOS only', () => {
    expect(headroomOf(facts({ os: 'darwin', pressure_level: 2 }), policy, NOW).eligible).toBe(true);
    expect(headroomOf(facts({ os: 'darwin', pressure_level: 4 }), policy, NOW).reason).toEqual([
      'memory pressure: critical',
    ]);
    expect(headroomOf(facts({ os: 'linux', pressure_level: 4 }), policy, NOW).eligible).toBe(true);
  });

  it('needs free memory of the reserve times reservations plus one', () => {
    expect(headroomOf(facts({ memory_free_bytes: 9 * GIB }, { reservations: 2 }), policy, NOW).eligible).toBe(
      true,
    );
    const h = headroomOf(facts({ memory_free_bytes: 9 * GIB - 1 }, { reservations: 2 }), policy, NOW);
    // One byte short: GiB with one decimal would print the same number twice.
    expect(h.reason).toEqual(['memory: 9663676415 bytes free, needs 9663676416 bytes (reserve for 3)']);
  });

  it('needs total memory of the reserve times active agents, reservations and one', () => {
    const base = { memory_total_bytes: 12 * GIB, memory_free_bytes: 12 * GIB, busy: 0 };
    expect(headroomOf(facts({ ...base, active_agents: 2 }, { reservations: 1 }), policy, NOW).eligible).toBe(
      true,
    );
    const h = headroomOf(facts({ ...base, active_agents: 3 }, { reservations: 1 }), policy, NOW);
    expect(h.reason).toEqual(['memory: 12.0 GiB total, needs 15.0 GiB (reserve for 5)']);
  });

  it('needs free cores of at least free_core_fraction_min of the cores', () => {
    expect(headroomOf(facts({ busy: 0.75 }), policy, NOW).eligible).toBe(true);
    const h = headroomOf(facts({ busy: 0.76 }), policy, NOW);
    expect(h.reason).toEqual(['cpu: 2.9 free cores, needs 3.0']);
  });

  it('lists every failed condition together', () => {
    const h = headroomOf(
      facts({ busy: null, disk_free_bytes: 0, memory_free_bytes: 0 }, { service: 'down' }),
      policy,
      NOW,
    );
    expect(h.reason.map((r) => r.split(':')[0])).toEqual(['service down', 'no cpu sample', 'disk', 'memory']);
  });
});

describe('refusal reasons show why', () => {
  // Rounding to one decimal must never print a refused value as the threshold it failed.
  const two = (busy: number) => headroomOf(facts({ cores: 2, busy }), policy, NOW).reason;

  it('gives free cores the decimals it takes to differ from what is needed', () => {
    expect(two(0.76)).toEqual(['cpu: 0.48 free cores, needs 0.50']);
    expect(two(0.7501)).toEqual(['cpu: 0.4998 free cores, needs 0.5000']);
    expect(two(0.8)).toEqual(['cpu: 0.4 free cores, needs 0.5']);
  });

  it('falls back to the exact numbers when four decimals still agree', () => {
    expect(two(0.75000005)).toEqual([expect.stringMatching(/^cpu: 0\.49999\d+ free cores, needs 0\.5$/)]);
  });

  it('gives the disk share the decimals it takes to read below the policy', () => {
    const h = headroomOf(facts({ disk_total_bytes: 1000 * GIB, disk_free_bytes: 149.6 * GIB }), policy, NOW);
    expect(h.reason).toEqual(['disk: 14.96% free, needs 15%']);
  });

  it('names total memory in bytes when GiB would read the same', () => {
    const h = headroomOf(
      facts({ memory_total_bytes: 6 * GIB - 1, memory_free_bytes: 6 * GIB }, { reservations: 1 }),
      policy,
      NOW,
    );
    expect(h.reason).toEqual(['memory: 6442450943 bytes total, needs 6442450944 bytes (reserve for 2)']);
  });
});
