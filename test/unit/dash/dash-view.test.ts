// The page's markup: every value from a state file is one escape-free line escaped for HTML, in
// text and in attributes alike; charts average a day of samples into a bounded number of points,
// break at gaps and clamp hostile values; each row gets the action the CLI would offer (Stop a
// running job, Close an open child) and nothing else; history is searched and summed as
// `dogsled history` does it.
import { describe, expect, it } from 'vitest';
import { rowAction } from '../../../dash/view/board-view.js';
import { bucketSeries, hostChart, linePaths } from '../../../dash/view/charts.js';
import { hostState, ineligibleWhy } from '../../../dash/view/fleet-view.js';
import { budgetSection, historySection, receiptsSection } from '../../../dash/view/history-view.js';
import { escapeText, html, markup } from '../../../dash/view/html.js';
import { renderSections, sectionMarkup } from '../../../dash/view/page-view.js';
import type { BoardRow, DashHost, DashState, HistoryEntry } from '../../../service/actions/dash.js';

const NOW = 1_800_000_000_000;
const HOSTILE = '<img src=x onerror=alert(1)>"\'`&\u001b[31mred\u001b]0;title\u0007\u009b2J\nnext';

function entry(over: Partial<HistoryEntry>): HistoryEntry {
  return {
    v: 1,
    id: 'i_1',
    kind: 'agent',
    host: 'local',
    owner: 'w1:p1',
    name: 'child',
    harness: 'claude',
    model: 'claude-sonnet-4-5',
    branch: null,
    summary: 'Do it.',
    outcome: 'finished',
    ok: true,
    started_ms: NOW - 60_000,
    ended_ms: NOW - 1000,
    duration_ms: 59_000,
    receipt: {
      tokens: 18_666,
      usd: 0.0106,
      turns: 1,
      model: 'claude-sonnet-4-5',
      models: [
        {
          model: 'claude-sonnet-4-5',
          input: 6,
          output: 240,
          cache_read: 18_000,
          cache_write: 420,
          turns: 1,
          usd: 0.0106,
        },
      ],
      prices_as_of: '2025-11-24',
      wall_ms: 59_000,
    },
    ...over,
  };
}

function host(over: Partial<DashHost> = {}): DashHost {
  return {
    id: 'local',
    label: 'local',
    local: true,
    reachable: true,
    service: 'up',
    eligible: true,
    age_ms: 500,
    reservations: 0,
    reason: [],
    free_cores: 5,
    unreachable: null,
    reserved: [],
    agents: [],
    jobs: [],
    probe: {
      cores: 8,
      busy: 0.25,
      load1: 1,
      memory: { total_bytes: 32 * 2 ** 30, free_bytes: 16 * 2 ** 30 },
      disk: { total_bytes: 100 * 2 ** 30, free_bytes: 50 * 2 ** 30 },
    },
    busy_history: [],
    points: [],
    points_from: 'samples',
    ...over,
  };
}

function row(over: Partial<BoardRow>): BoardRow {
  return {
    kind: 'job',
    id: 'j_aaaaaaaaaaaa',
    host: 'local',
    pane: null,
    title: 'make test',
    detail: null,
    state: 'running',
    since_ms: NOW - 1000,
    age_ms: 1000,
    reason: null,
    place: null,
    item: 'i_1',
    job: 'j_aaaaaaaaaaaa',
    ticket: null,
    group: 'running',
    seen_ms: null,
    receipt: null,
    ...over,
  };
}

describe('text in the page', () => {
  it('is one escape-free line, escaped for HTML', () => {
    const text = escapeText(HOSTILE);
    expect(text).toBe('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&#96;&amp;red next');
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f<>"'`]/);
  });

  it('is escaped inside attributes and between tags, while markup the page made stays', () => {
    const made = markup(html`<p title="${HOSTILE}">${HOSTILE}${html`<b>${'<i>'}</b>`}</p>`);
    expect(made).toBe(`<p title="${escapeText(HOSTILE)}">${escapeText(HOSTILE)}<b>&lt;i&gt;</b></p>`);
  });

  it('reaches no section unescaped, from any field a state file holds', () => {
    const state: DashState = {
      now_ms: NOW,
      hosts: [
        host({
          label: HOSTILE,
          eligible: false,
          reason: [HOSTILE],
          jobs: [
            {
              id: HOSTILE,
              command: [HOSTILE],
              owner: null,
              started_ms: NOW,
              ended_ms: null,
              exit_code: null,
              signal: null,
              reason: null,
            },
          ],
        }),
      ],
      boards: [
        {
          version: 1,
          owner: HOSTILE,
          now_ms: NOW,
          groups: [
            {
              id: 'running',
              title: 'RUNNING',
              rows: [row({ title: HOSTILE, detail: HOSTILE, reason: HOSTILE, host: HOSTILE, job: HOSTILE })],
            },
            {
              id: 'done',
              title: 'DONE',
              rows: [row({ kind: 'agent', group: 'done', state: HOSTILE, receipt: HOSTILE })],
            },
          ],
        },
      ],
      history: [
        entry({ name: HOSTILE, summary: HOSTILE, outcome: HOSTILE, host: HOSTILE, harness: HOSTILE }),
      ],
      receipts: [
        {
          id: 'i_1',
          name: HOSTILE,
          host: HOSTILE,
          owner: null,
          harness: HOSTILE,
          outcome: HOSTILE,
          ended_ms: NOW,
          receipt: entry({}).receipt,
        },
      ],
      budget: [{ kind: 'owner', name: HOSTILE, spent_usd: 1, limit_usd: 2, spent_out: false }],
      budget_active: true,
      prices_as_of: '2025-11-24',
      problems: [HOSTILE],
    };
    const all = Object.values(sectionMarkup(renderSections(state, HOSTILE))).join('\n');
    expect(all).not.toContain('<img');
    expect(all).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(all).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('charts', () => {
  const points = Array.from({ length: 86_400 }, (_, i) => ({
    ts_ms: NOW - 86_400_000 + i * 1000 + 500,
    busy: i % 2 === 0 ? 0.2 : 0.4,
    memory_used: 0.5,
  }));

  it('average a day of one-second samples into a bounded number of points', () => {
    const day = bucketSeries(points, (p) => p.busy, 'day', NOW);
    expect(day.values).toHaveLength(144);
    expect(day.mean).toBeCloseTo(0.3, 5);
    const svg = markup(hostChart(points, 'day', NOW));
    expect(svg.length).toBeLessThan(12_000);
    expect(svg).toContain('busy 30% avg, 30% peak');
    expect(svg).toContain('memory 50% avg');
  });

  it('break the line where no sample fell, and clamp values outside 0-1', () => {
    const series = bucketSeries(
      [
        { ts_ms: NOW - 3_590_000, busy: 7, memory_used: null },
        { ts_ms: NOW - 10_000, busy: -3, memory_used: null },
        { ts_ms: NOW - 9_000, busy: Number.NaN, memory_used: null },
      ],
      (p) => p.busy,
      'hour',
      NOW,
    );
    expect(series.values[0]).toBe(1);
    expect(series.values[59]).toBe(0);
    expect(series.values.filter((v) => v === null)).toHaveLength(58);
    expect(linePaths(series.values)).toHaveLength(2);
  });

  it('say so when a window has no samples', () => {
    expect(markup(hostChart([], 'hour', NOW))).toContain('last hour: no samples');
  });
});

describe('a host on the page', () => {
  it('says why it takes no work', () => {
    expect(hostState(host())).toEqual({ word: 'eligible', tone: 'ok' });
    expect(ineligibleWhy(host({ eligible: false, reason: ['cpu: 0.2 free cores, needs 2.0'] }))).toEqual([
      'cpu: 0.2 free cores, needs 2.0',
    ]);
    expect(hostState(host({ reachable: false, unreachable: 'timed out' })).word).toBe('unreachable');
    expect(ineligibleWhy(host({ reachable: false, unreachable: 'timed out' }))).toEqual([
      'unreachable: timed out',
    ]);
    expect(hostState(host({ service: 'down', eligible: false })).word).toBe('service down');
  });
});

describe('row actions', () => {
  it('offer Stop on a running or starting job and Close on an open child, nothing else', () => {
    expect(markup(rowAction(row({})))).toContain('data-action="stop" data-ref="j_aaaaaaaaaaaa"');
    expect(markup(rowAction(row({ state: 'starting' })))).toContain('data-action="stop"');
    expect(markup(rowAction(row({ state: 'exit 0', group: 'done' })))).toBe('');
    const child = row({ kind: 'agent', job: null, pane: 'w1:p4', state: 'working' });
    expect(markup(rowAction(child))).toContain('data-action="close" data-pane="w1:p4" data-host="local"');
    expect(markup(rowAction({ ...child, group: 'attention', state: 'blocked' }))).toContain(
      'data-action="close"',
    );
    expect(markup(rowAction({ ...child, group: 'done', state: 'finished' }))).toBe('');
    expect(markup(rowAction({ ...child, kind: 'ticket', group: 'waiting' }))).toBe('');
  });
});

describe('history, receipts and budgets', () => {
  const entries = [
    entry({ id: 'i_1', name: 'alpha', ended_ms: NOW - 3000 }),
    entry({ id: 'i_2', name: 'beta', harness: 'codex', ok: false, outcome: 'closed', ended_ms: NOW - 2000 }),
    entry({
      id: 'j_1',
      kind: 'job',
      name: 'make test',
      harness: null,
      model: null,
      receipt: null,
      ended_ms: NOW - 1000,
    }),
  ];

  it('lists what a search selects, newest first, summed as history --stats sums it', () => {
    const all = markup(historySection(entries, '', NOW));
    expect(all.indexOf('make test')).toBeLessThan(all.indexOf('alpha'));
    expect(all).toContain('3 runs');
    const codex = markup(historySection(entries, 'CODEX', NOW));
    expect(codex).toContain('1 run matching “CODEX”');
    expect(codex).toContain('beta');
    expect(codex).not.toContain('alpha');
    expect(markup(historySection(entries, 'nothing-like-it', NOW))).toContain('Nothing in history matches');
  });

  it('shows each receipt with its tokens by kind and its prices, and unknown usage as unknown', () => {
    const shown = markup(
      receiptsSection(
        [
          {
            id: 'i_1',
            name: 'alpha',
            host: 'local',
            owner: null,
            harness: 'claude',
            outcome: 'finished',
            ended_ms: NOW,
            receipt: entry({}).receipt,
          },
          {
            id: 'i_2',
            name: 'blind',
            host: 'local',
            owner: null,
            harness: 'pi',
            outcome: 'closed',
            ended_ms: NOW,
            receipt: null,
          },
        ],
        '2025-11-24',
        NOW,
      ),
    );
    expect(shown).toContain('19k tok · $0.01');
    expect(shown).toContain('at 2025-11-24 prices');
    expect(shown).toContain('18k cache read');
    expect(shown).toContain('usage unknown');
  });

  it('shows the day spent beside each budget', () => {
    const shown = markup(
      budgetSection([{ kind: 'owner', name: 'w1:p1', spent_usd: 21, limit_usd: 20, spent_out: true }], true),
    );
    expect(shown).toContain('owner w1:p1');
    expect(shown).toContain('$21.00');
    expect(shown).toContain('spent: new children wait');
    expect(markup(budgetSection([], false))).toContain('No budget is set');
  });
});
