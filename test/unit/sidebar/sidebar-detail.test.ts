// The host detail view's model: CPU busy and memory used over the last hour or day from samples, the
// verdict with the reasons `status` gives, and the host's reservations, agents and jobs; a short pane
// gets the charts' numbers as text.
import { describe, expect, it } from 'vitest';
import type { HostFacts } from '../../../service/core/fleet/fleet-types.js';
import { buildDetail, type HistoryPoint, historySeries } from '../../../sidebar/model/detail.js';
import type { Line, SidebarHost } from '../../../sidebar/model/types.js';
import { sidebarHost } from '../../helpers/sidebar-host.js';

const NOW = 1_800_000_000_000;
const MIN = 60_000;
const GIB = 1024 ** 3;

const text = (line: Line) => line.segments.map((s) => s.text).join('');

function host(extra: Partial<SidebarHost> = {}): SidebarHost {
  return sidebarHost({
    eligible: false,
    reservations: 1,
    reason: ['cpu: 0.5 free cores, needs 2', 'memory: 1.0 GiB free, needs 3.0 GiB (reserve for 2)'],
    free_cores: 0.5,
    reserved: [{ id: 'r_abc', expires_ms: NOW + 4 * MIN, owner: 'w1:p1' }],
    agents: [{ pane: 'w3:p1', agent: 'claude', state: 'working', name: 'fixer', model: 'opus' }],
    jobs: [
      {
        id: 'j_run',
        command: ['make', 'test'],
        owner: 'w1:p1',
        started_ms: NOW - 2 * MIN,
        ended_ms: null,
        exit_code: null,
        signal: null,
        reason: null,
      },
      {
        id: 'j_bad',
        command: ['sh', '-c', 'exit 3'],
        owner: 'w1:p1',
        started_ms: NOW - 9 * MIN,
        ended_ms: NOW - 8 * MIN,
        exit_code: 3,
        signal: null,
        reason: null,
      },
    ],
    probe: {
      cores: 8,
      busy: 0.9,
      load1: 7.5,
      memory: { total_bytes: 16 * GIB, free_bytes: GIB },
      disk: { total_bytes: 500 * GIB, free_bytes: 200 * GIB },
    },
    ...extra,
  });
}

/** A sample a minute over the last `minutes`, busy climbing from 0 to 1, memory half used. */
function samples(minutes: number): HistoryPoint[] {
  return Array.from({ length: minutes }, (_, i) => ({
    ts_ms: NOW - (minutes - i) * MIN + 1,
    busy: i / (minutes - 1),
    memory_used: 0.5,
  }));
}

describe('the history of a host', () => {
  it('averages the last hour into minutes and the last day into quarter hours, oldest first', () => {
    const hour = historySeries(samples(60), (p) => p.busy, 'hour', NOW);
    expect(hour.y).toHaveLength(60);
    expect(hour.y[0]).toBe(0);
    expect(hour.y.at(-1)).toBe(100);
    expect(hour.x.at(-1)).toBe('now');
    expect(hour.x[0]).toBe('-59m');
    expect(hour).toMatchObject({ avg: 50, max: 100 });
    const day = historySeries(samples(24 * 60), (p) => p.memory_used, 'day', NOW);
    expect(day.y).toHaveLength(96);
    expect(new Set(day.y)).toEqual(new Set([50]));
    expect(day.x[0]).toBe('-24h');
  });

  it('leaves out samples outside the window, without a figure, or not finite, and clamps the rest', () => {
    const points: HistoryPoint[] = [
      { ts_ms: NOW - 2 * 3_600_000, busy: 1, memory_used: 1 },
      { ts_ms: NOW - MIN, busy: null, memory_used: 0.2 },
      { ts_ms: NOW - MIN / 2, busy: 7, memory_used: Number.NaN },
      { ts_ms: NOW + MIN, busy: 1, memory_used: 1 },
    ];
    const busy = historySeries(points, (p) => p.busy, 'hour', NOW);
    expect(busy).toMatchObject({ y: [100], avg: 100, max: 100 });
    expect(historySeries(points, (p) => p.memory_used, 'hour', NOW).y).toEqual([20]);
    expect(historySeries([], (p) => p.busy, 'hour', NOW)).toMatchObject({ y: [], avg: null, max: null });
  });
});

describe('the detail view of a host', () => {
  it('says first whether it takes work and every reason, then charts titled with their numbers', () => {
    const detail = buildDetail(
      host(),
      { host: 'local', window: 'hour', scroll: 0 },
      samples(60),
      NOW,
      38,
      45,
    );
    const head = detail.head.map(text).map((l) => l.trimEnd());
    expect(head.slice(0, 4)).toEqual([
      'service up · sampled 2s ago',
      '▲ not eligible · 0.5 free cores',
      '- cpu: 0.5 free cores, needs 2',
      '- memory: 1.0 GiB free, needs 3.0',
    ]);
    expect(head[4]).toBe('  GiB (reserve for 2)');
    expect(detail.charts.map((c) => c.title.join(' '))).toEqual([
      'cpu busy · last hour · avg 50% · max 100%',
      'memory used · last hour · avg 50% · max 50%',
    ]);
    for (const chart of detail.charts) expect(chart.y).toHaveLength(60);
    const body = detail.body.map(text).map((l) => l.trimEnd());
    expect(body).toEqual(
      expect.arrayContaining([
        'reservations 1',
        '  r_abc · 4m left · w1:p1',
        'agents 1',
        '  working · w3:p1 claude',
        '    fixer · opus',
        'jobs 2',
        '  running 2m · j_run',
        '    make test',
        '  exit 3 · j_bad',
      ]),
    );
    expect(body.at(-1)).toBe('w: last day · ↑↓ scroll · esc: back');
    // Everything fits the frame.
    expect(detail.bodyTop + detail.bodyHeight).toBeLessThanOrEqual(43);
    for (const line of [...detail.head, ...detail.body]) expect([...text(line)].length).toBe(36);
  });

  it('gives a pane too short for charts their numbers as text, all of it scrollable', () => {
    const view = { host: 'local', window: 'day' as const, scroll: 0 };
    const detail = buildDetail(host(), view, samples(24 * 60), NOW, 30, 12);
    expect(detail.charts).toEqual([]);
    expect(detail.head).toEqual([]);
    // Scrolled line by line, the short pane shows every line once.
    const all: string[] = [];
    for (let scroll = 0; ; scroll++) {
      const page = buildDetail(host(), { ...view, scroll }, samples(24 * 60), NOW, 30, 12);
      if (page.scroll < scroll) {
        all.push(...page.body.slice(1).map(text));
        break;
      }
      all.push(text(page.body[0]!));
    }
    const joined = all.map((l) => l.trimEnd()).join('\n');
    expect(joined).toContain('▲ not eligible');
    expect(joined.replace(/\s+/g, ' ')).toContain('cpu busy · last day · avg 50% · max 100%');
    expect(joined).toContain('(charts need a taller pane)');
    const scrolled = buildDetail(host(), { ...view, scroll: 5 }, samples(24 * 60), NOW, 30, 12);
    expect(scrolled.scroll).toBe(5);
    expect(text(scrolled.body[0]!)).toBe(all[5]);
    expect(all.at(-1)?.trim()).toBe('esc: back');
  });

  it("says a peer's history stays on that host, and that a host is unreachable and why", () => {
    const peer = host({ id: 'p1', label: 'peer-1', local: false, reachable: false, unreachable: 'timeout' });
    const detail = buildDetail(peer, { host: 'p1', window: 'hour', scroll: 0 }, null, NOW, 38, 45);
    const all = [...detail.head, ...detail.body].map(text).join('\n');
    expect(all).toContain('? unreachable: timeout');
    expect(all.replace(/\s+/g, ' ')).toContain('cpu busy · last hour: kept on peer-1, not read here');
    expect(detail.charts).toEqual([]);
  });

  it('strips escapes from every string another host sent', () => {
    const hostile = host({
      label: 'evil\u001b[2J',
      reason: ['cpu\u001b]0;pwned\u0007 low'],
      agents: [{ pane: 'w\u001b[31m1', agent: 'x', state: 'working', name: 'n\u009b2J', model: null }],
    });
    const detail = buildDetail(hostile, { host: 'local', window: 'hour', scroll: 0 }, [], NOW, 38, 60);
    const all = [detail.title, ...[...detail.head, ...detail.body].map(text)].join('\n');
    expect(all).not.toMatch(/[\u001b\u009b\u0007]/);
  });
});

describe('the detail view while its samples are read', () => {
  it('says they are being read rather than that there are none', () => {
    const detail = buildDetail(host(), { host: 'local', window: 'hour', scroll: 0 }, undefined, NOW, 38, 45);
    const all = [...detail.head, ...detail.body].map(text).join(' ').replace(/\s+/g, ' ');
    expect(all).toContain('cpu busy · last hour: reading samples.jsonl');
    expect(all).not.toContain('no samples');
    expect(detail.charts).toEqual([]);
  });
});

describe('what the host is', () => {
  const facts: HostFacts = {
    read_ms: 1,
    os: { platform: 'linux', distro: 'Debian GNU/Linux', release: '12', kernel: '6.1.0', arch: 'x64' },
    cpu: { model: 'AMD EPYC 7763', cores: 16, physical_cores: 8, performance_cores: 8, efficiency_cores: 0 },
    memory_bytes: 64 * GIB,
    gpus: [{ vendor: 'NVIDIA', model: 'RTX \x1b[31m4090', memory_bytes: 24 * GIB }],
    errors: [],
  };
  const view = { host: 'local', window: 'hour' as const, scroll: 0 };
  const all = (frame: { head: Line[] }) => frame.head.map(text).join('\n');

  it('shows the facts status shows, wrapped whole and escape-free, in the never-scrolled head', () => {
    const frame = buildDetail(host({ facts }), view, [], NOW, 60, 60);
    const head = all(frame);
    expect(head).toContain('system AMD EPYC 7763, 16 cores');
    expect(head.replace(/\s+/g, ' ')).toContain('RTX 4090 24.0 GiB');
    expect(head).not.toContain('\x1b');
  });

  it('has no system line before the service has read them', () => {
    expect(all(buildDetail(host({ facts: null }), view, [], NOW, 60, 60))).not.toContain('system ');
    expect(all(buildDetail(host(), view, [], NOW, 60, 60))).not.toContain('system ');
  });
});
