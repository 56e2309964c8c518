// The sidebar's host card with the host's facts: a dim third line, what `status` shows, cut to the
// panel; none while the service has not read them, and none when the panel is folded.

import { describe, expect, it } from 'vitest';
import type { HostFacts } from '../../../service/core/fleet/fleet-types.js';
import { hostLines } from '../../../sidebar/model/hosts.js';
import type { Line, SidebarHost } from '../../../sidebar/model/types.js';

const GIB = 1024 ** 3;
const thresholds = { memory_reserve_bytes: 3 * GIB, disk_free_min_percent: 15 };
const facts: HostFacts = {
  read_ms: 1,
  os: { platform: 'linux', distro: 'Debian GNU/Linux', release: '12', kernel: '6.1.0', arch: 'x64' },
  cpu: { model: 'AMD EPYC 7763', cores: 16, physical_cores: 8, performance_cores: 8, efficiency_cores: 0 },
  memory_bytes: 64 * GIB,
  gpus: [{ vendor: 'NVIDIA', model: 'RTX \x1b[31m4090', memory_bytes: 24 * GIB }],
  errors: [],
};
const host = (extra: Partial<SidebarHost>): SidebarHost => ({
  id: 'local',
  label: 'local',
  local: true,
  reachable: true,
  service: 'up',
  eligible: true,
  age_ms: 1000,
  reservations: 0,
  probe: {
    cores: 16,
    busy: 0.25,
    load1: 2,
    memory: { total_bytes: 64 * GIB, free_bytes: 40 * GIB },
    disk: { total_bytes: 500 * GIB, free_bytes: 200 * GIB },
  },
  busy_history: [],
  ...extra,
});
const text = (line: Line) => line.segments.map((s) => s.text).join('');

describe('the host card', () => {
  it('adds the facts as a dim third line, cut to the width, escape-free', () => {
    const lines = hostLines([host({ facts })], 36, false, thresholds);
    expect(lines).toHaveLength(3);
    expect(text(lines[2]!)).toBe('  AMD EPYC 7763, 16 cores (8 physic…');
    expect(lines[2]!.segments[0]).toMatchObject({ fg: 'overlay1', dim: true });
    const wide = text(hostLines([host({ facts })], 200, false, thresholds)[2]!);
    expect(wide).toContain('RTX 4090 24.0 GiB');
    expect(wide).not.toContain('\x1b');
  });

  it('has no facts line before they are read, nor when folded', () => {
    expect(hostLines([host({ facts: null })], 36, false, thresholds)).toHaveLength(2);
    expect(hostLines([host({})], 36, false, thresholds)).toHaveLength(2);
    expect(hostLines([host({ facts })], 36, true, thresholds)).toHaveLength(1);
  });
});
