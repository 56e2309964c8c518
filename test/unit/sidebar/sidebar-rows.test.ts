// The sidebar's cards keep what the owner must act on: the action first, wrapped rather than cut,
// only names shortened (from the middle), at 30, 38 and 60 columns; WAITING rows and refused hosts
// say why in the words of `run` and `status`.
import { describe, expect, it } from 'vitest';
import { type BoardInput, boardOf, boardRows } from '../../../service/core/board/board-rule.js';
import { queuedWhy } from '../../../service/core/placement/queued-why.js';
import { buildSidebar } from '../../../sidebar/model/build.js';
import { cells, middleCells, wrapWords } from '../../../sidebar/model/cells.js';
import { rowAction, waitingWhy } from '../../../sidebar/model/reasons.js';
import { initialView, type Line, type SidebarHost, type SidebarState } from '../../../sidebar/model/types.js';
import { clickAt, moveHost, openDetail, switchWindow } from '../../../sidebar/model/view.js';
import { card } from '../../../sidebar/model/work.js';
import { sidebarHost } from '../../helpers/sidebar-host.js';

const NOW = 1_800_000_000_000;
const GIB = 1024 ** 3;
const OWNER = 'w1:p1';
const WIDTHS = [30, 38, 60];

function host(extra: Partial<SidebarHost> = {}): SidebarHost {
  return sidebarHost({ age_ms: 1000, ...extra });
}

const text = (line: Line) => line.segments.map((s) => s.text).join('');

function rowsOf(input: Partial<BoardInput>) {
  return boardRows(boardOf({ owner: OWNER, items: [], tickets: [], jobs: new Map(), ...input }, NOW));
}

const agentItem = (id: string, name: string, extra = {}) => ({
  id,
  kind: 'agent' as const,
  host: 'local',
  pane: `w3:${id}`,
  owner: OWNER,
  created_ms: NOW - 600_000,
  closed_ms: null,
  close_reason: null,
  job: null,
  ticket: null,
  name,
  harness: 'pi',
  ...extra,
});

function toLand(extra = {}, branch = 'feat/parser-rewrite-with-property-tests') {
  const toLand = [
    {
      item: 'i_parser',
      name: 'parser',
      host: 'local',
      branch,
      ahead: 1,
      dirty: false,
      observed_ms: NOW - 5000,
    },
  ];
  const item = agentItem('i_parser', 'parser', { closed_ms: NOW - 1000, close_reason: 'done', ...extra });
  return rowsOf({ items: [item], toLand })[0]!;
}

function failedJob() {
  const item = {
    ...agentItem('i_job', ''),
    kind: 'job' as const,
    job: 'j_4kq2m7xa9d3b',
    pane: 'w2:p7',
    command: ['sh', '-c', 'exit 3'],
  };
  const job = {
    id: 'j_4kq2m7xa9d3b',
    command: ['npm', 'run', 'test:integration', '--', '--reporter=verbose', '--bail'],
    cwd: '/repo',
    host: 'local',
    pane: 'w2:p7',
    created_ms: NOW - 600_000,
    started_ms: NOW - 500_000,
    ended_ms: NOW - 120_000,
    exit_code: 3,
    signal: null,
    reason: null,
  };
  return rowsOf({ items: [item], jobs: new Map([[job.id, job]]) })[0]!;
}

function queued(place = 2) {
  const ticket = (id: string, created: number) => ({
    id,
    kind: 'job',
    owner: id === 't_mine' ? OWNER : 'w9:p9',
    pin: null,
    created_ms: created,
    state: 'pending',
    state_ms: created,
    host: null,
    request: { command: ['make', 'lint'] },
    error: null,
  });
  const earlier = Array.from({ length: place - 1 }, (_, i) => ticket(`t_e${i}`, NOW - 60_000 + i));
  return rowsOf({ tickets: [...earlier, ticket('t_mine', NOW - 20_000)] })[0]!;
}

describe('text that keeps its meaning in any width', () => {
  it('shortens names from the middle, keeping both ends', () => {
    expect(middleCells('feat/parser-rewrite-with-property-tests', 20)).toBe('feat/parse…rty-tests');
    expect(cells(middleCells('feat/parser-rewrite-with-property-tests', 20))).toBe(20);
    expect(middleCells('short', 20)).toBe('short');
    expect(cells(middleCells('界界界界界界界界', 7))).toBeLessThanOrEqual(7);
  });

  it('wraps at spaces and never drops a character', () => {
    const reason = 'no host has room (local: cpu: 0.5 free cores, needs 2)';
    for (const width of [10, 17, 28]) {
      const lines = wrapWords(reason, width);
      for (const line of lines) expect(cells(line)).toBeLessThanOrEqual(width);
      expect(lines.join(' ')).toBe(reason);
    }
    expect(wrapWords('j_4kq2m7xa9d3bxyz', 5).join('')).toBe('j_4kq2m7xa9d3bxyz');
  });
});

describe('a card says first what the owner must do, and never cuts it', () => {
  it.each(WIDTHS)(
    'puts "+1 to land" first and the branch shortened in the middle, at %i columns',
    (width) => {
      const lines = card(toLand(), width - 2, false, []).map(text);
      expect(lines[0]).toMatch(/^ {2}\+1 to land {2}parser +$/);
      expect(lines.join('\n')).not.toContain('…to land');
      const branch = lines.find((l) => l.includes('branch'))!;
      expect(branch).toMatch(/branch feat\/.*tests/);
      for (const line of lines) expect(cells(line)).toBe(width - 2);
    },
  );

  it.each(WIDTHS)(
    'keeps the branch and its receipt whole, on one line when both fit, at %i columns',
    (width) => {
      const receipt = {
        tokens: 12_345,
        usd: 0.07,
        turns: 3,
        model: 'm',
        models: [],
        prices_as_of: null,
        wall_ms: 1,
      };
      const lines = card(toLand({ receipt }, 'feat/parser'), width - 2, false, []).map(text);
      const shown = lines.map((l) => l.trim());
      const branch = shown.findIndex((l) => l.includes('branch feat/parser'));
      expect(branch).toBeGreaterThan(0);
      const together = shown[branch]!.endsWith('branch feat/parser · 12k tok · $0.07');
      expect(together || shown[branch + 1] === '12k tok · $0.07').toBe(true);
      expect(together).toBe(width >= 60);
      for (const line of lines) expect(cells(line)).toBe(width - 2);
    },
  );

  it.each(WIDTHS)(
    'shows "exit 3" before the command, the job id whole and the reason, at %i columns',
    (width) => {
      const lines = card(failedJob(), width - 2, false, []).map(text);
      expect(lines[0]).toMatch(/^ {2}exit 3 {2}npm run /);
      expect(lines[0]).toMatch(/--bail *$/);
      expect(lines.join(' ').replace(/\s+/g, ' ')).toContain('job j_4kq2m7xa9d3b · local w2:p7');
      expect(lines.at(-1)).toMatch(/2m · exited 3/);
    },
  );

  it.each(WIDTHS)(
    'gives a queued ticket its place and, wrapped whole, why it waits, at %i columns',
    (width) => {
      const refused = host({
        eligible: false,
        reason: ['cpu: 0.5 free cores, needs 2', 'memory: 1.0 GiB free, needs 3.0 GiB (reserve for 1)'],
      });
      const lines = card(queued(2), width - 2, false, [refused]).map(text);
      expect(lines[0]).toMatch(/^ {2}#2 queued {2}make lint +$/);
      const why = lines
        .slice(2)
        .map((l) => l.trim())
        .join(' ');
      expect(why).toBe(`20s · ${queuedWhy(0, [{ label: 'local', reason: refused.reason }])}`);
      expect(why).toContain('no host has room (local: cpu: 0.5 free cores, needs 2; memory: 1.0 GiB free');
    },
  );

  it('wraps a pill wider than the card onto lines of its own', () => {
    const row = { ...failedJob(), state: 'killed by SIGKILL after its --idle-timeout' };
    const lines = card(row, 20, false, []).map(text);
    expect(lines.slice(0, 3).map((l) => l.trim())).toEqual([
      'killed by SIGKILL',
      'after its',
      '--idle-timeout',
    ]);
    expect(lines[3]).toMatch(/^ {2}npm run/);
  });

  it('marks the selected card on every line, in text as well as colour', () => {
    const lines = card(failedJob(), 36, true, []).map(text);
    expect(lines.every((l) => l.startsWith('▌'))).toBe(true);
  });

  it('keeps every line of a 50-row board inside 30 columns', () => {
    const frame = buildSidebar(
      {
        owner: OWNER,
        hosts: [host()],
        board: boardOf({ owner: OWNER, items: [], tickets: [], jobs: new Map(), toLand: [] }, NOW),
        todos: { available: false, reason: null },
        thresholds: { memory_reserve_bytes: GIB, disk_free_min_percent: 10 },
        problems: [],
      },
      initialView(),
      NOW,
      30,
      12,
    );
    for (const panel of frame.panels) {
      for (const line of panel.lines)
        expect([panel.id, text(line), cells(text(line))]).toEqual([panel.id, text(line), 28]);
    }
  });
});

describe('why a WAITING ticket waits', () => {
  it('names the missing service before anything else', () => {
    expect(waitingWhy(queued(1), [host({ service: 'down' })])).toBe(
      'no service admits it here: run `dogsled serve`',
    );
  });

  it('names the earlier tickets when a host has room, and the next pass when none is ahead', () => {
    expect(waitingWhy(queued(3), [host()])).toBe(queuedWhy(2, []));
    expect(waitingWhy(queued(3), [host()])).toBe('2 earlier tickets wait for the same host');
    expect(waitingWhy(queued(1), [host()])).toBe("local has room: admitted at the service's next pass");
  });

  it('keeps the quota hold the board gives, and says a pinned host is unknown', () => {
    expect(waitingWhy({ ...queued(1), reason: 'codex is exhausted for 2h' }, [host()])).toBe(
      'codex is exhausted for 2h',
    );
    expect(waitingWhy({ ...queued(1), detail: 'pinned to gpu-box' }, [host()])).toBe(
      'no host named gpu-box is known here',
    );
  });

  it('reads "#2 queued" as the action of a queued ticket', () => {
    expect(rowAction(queued(2))).toBe('#2 queued');
    expect(rowAction(toLand())).toBe('+1 to land');
    expect(rowAction(failedJob())).toBe('exit 3');
  });
});

describe('the Hosts panel selects a host, and ⏎ or a double click opens its detail', () => {
  const two = (): SidebarState => ({
    owner: OWNER,
    hosts: [host(), host({ id: 'p1', label: 'peer-1', local: false })],
    board: null,
    todos: { available: false, reason: null },
    thresholds: { memory_reserve_bytes: GIB, disk_free_min_percent: 10 },
    problems: [],
  });

  it('moves the selection over hosts and marks it', () => {
    const s = two();
    const view = moveHost(s, { ...initialView(), focus: 'hosts' }, 1);
    expect(view.host).toBe('local');
    const next = moveHost(s, view, 1);
    expect(next.host).toBe('p1');
    const frame = buildSidebar(s, next, NOW, 38, 40);
    const marked = frame.panels[0]!.lines.filter((l) => text(l).startsWith('▌'));
    expect(marked.map((l) => l.host)).toEqual(['p1', 'p1']);
  });

  it('opens the detail of the host under a double click, on the last hour; w switches to the day', () => {
    const s = two();
    const frame = buildSidebar(s, initialView(), NOW, 38, 40);
    const hosts = frame.panels[0]!;
    const y = hosts.top + 1 + hosts.lines.findIndex((l) => l.host === 'p1');
    expect(clickAt(s, initialView(), frame, y, false).view).toMatchObject({
      focus: 'hosts',
      host: 'p1',
      detail: null,
    });
    const opened = clickAt(s, initialView(), frame, y, true).view;
    expect(opened.detail).toEqual({ host: 'p1', window: 'hour', scroll: 0 });
    expect(switchWindow(opened).detail?.window).toBe('day');
    expect(openDetail(initialView(), 'local').detail?.host).toBe('local');
  });
});
