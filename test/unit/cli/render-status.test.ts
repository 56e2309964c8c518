// `dogsled status` for people keeps every line of a host's block within 80 columns: the disk line's
// path (a home or state dir of any length) is cut at its start, where it says least.
import { describe, expect, it } from 'vitest';
import { paint } from '../../../cli/render/color.js';
import { renderStatus } from '../../../cli/render/status-human.js';
import type { HostView, StatusReport } from '../../../service/hosts/view.js';

const GIB = 1024 ** 3;

function report(diskPath: string): StatusReport {
  const host: HostView = {
    id: 'local',
    label: 'local',
    hostname: 'box',
    local: true,
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
      busy: 0.5,
      memory: {
        total_bytes: 16 * GIB,
        used_bytes: 4 * GIB,
        free_bytes: 12 * GIB,
        scope: 'host',
        cgroup: null,
        limit_bytes: null,
      },
      pressure_level: null,
      disk: { path: diskPath, total_bytes: 252 * GIB, free_bytes: 75.5 * GIB },
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
  return { version: 1, now_ms: 10_000, hosts: [host], items: [], queue: [], sweep: null };
}

const diskLine = (path: string) =>
  renderStatus(report(path), paint(false)).find((line) => line.startsWith('  disk')) ?? '';

describe('status, the disk line', () => {
  it('shows a short path whole', () => {
    expect(diskLine('/home/ann')).toBe('  disk      75.5 GiB free of 252.0 GiB (30%) · /home/ann');
  });

  it('cuts a long path at its start to stay within 80 columns, its end kept', () => {
    const path = '/tmp/dogsled-cli-21e95c-ArzCdi/home/with/a/rather/long/tail';
    const line = diskLine(path);
    expect(line).toHaveLength(80);
    expect(line).toMatch(/ · …[^…]+\/long\/tail$/);
    expect(path.endsWith(line.slice(line.indexOf('…') + 1))).toBe(true);
  });

  it('never leaves half of a surrogate pair where it cut', () => {
    const line = diskLine(`/home/${'😀'.repeat(40)}`);
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});
