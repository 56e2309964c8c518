import { describe, expect, it } from 'vitest';
import { type Board, boardOf } from '../../../service/core/board/board-rule.js';
import { buildSidebar, SHORT_PANE_ROWS } from '../../../sidebar/model/build.js';
import { cells, clipCells, displayText, fitCells, REPLACEMENT } from '../../../sidebar/model/cells.js';
import {
  diskLevel,
  MEMORY_WARN_MARGIN,
  memoryLevel,
  meter,
  sparkPercents,
} from '../../../sidebar/model/hosts.js';
import { progressBar, TODOS_FOLD } from '../../../sidebar/model/todos.js';
import {
  type Frame,
  initialView,
  type Line,
  type SidebarHost,
  type SidebarState,
  type ViewState,
} from '../../../sidebar/model/types.js';
import {
  clickAt,
  cyclePanel,
  ensureSelection,
  menuFor,
  moveSelection,
  toggleFold,
} from '../../../sidebar/model/view.js';
import { sidebarHost } from '../../helpers/sidebar-host.js';

const NOW = 1_800_000_000_000;
const GIB = 1024 ** 3;
const T = { memory_reserve_bytes: 3 * GIB, disk_free_min_percent: 15 };

function host(i: number, extra: Partial<SidebarHost> = {}): SidebarHost {
  return sidebarHost({
    id: `h${i}`,
    label: i === 0 ? 'local' : `host-${i}`,
    local: i === 0,
    free_cores: null,
    busy_history: [0.1, 0.5, 0.9, null, 1],
    ...extra,
  });
}

function jobsBoard(n: number): Board {
  const items = Array.from({ length: n }, (_, i) => ({
    id: `i${i}`,
    kind: 'job' as const,
    host: 'local',
    pane: `w2:p${i}`,
    owner: 'w1:p1',
    created_ms: NOW - 60_000,
    closed_ms: null,
    close_reason: null,
    job: `j${i}`,
    ticket: null,
  }));
  const jobs = new Map(
    items.map((it, i) => [
      it.job,
      {
        id: it.job,
        command: ['make', `t${i}`],
        cwd: '/repo',
        host: 'local',
        pane: it.pane,
        created_ms: NOW - 60_000,
        started_ms: NOW - 50_000 + i,
        ended_ms: i % 5 === 0 ? NOW - 1000 : null,
        exit_code: i % 5 === 0 ? (i % 10 === 0 ? 0 : 2) : null,
        signal: null,
        reason: null,
      },
    ]),
  );
  return boardOf({ owner: 'w1:p1', items, tickets: [], jobs }, NOW);
}

function state(extra: Partial<SidebarState> = {}): SidebarState {
  return {
    owner: 'w1:p1',
    hosts: [host(0)],
    board: jobsBoard(3),
    todos: { available: false, reason: null },
    thresholds: T,
    problems: [],
    ...extra,
  };
}

function text(line: Line): string {
  return line.segments.map((s) => s.text).join('');
}

function panelText(frame: Frame, id: string): string[] {
  return frame.panels.find((p) => p.id === id)!.lines.map(text);
}

describe('cells: hostile text keeps the layout', () => {
  it('strips escape sequences and folds controls before measuring', () => {
    expect(displayText('a\u001b[31mb\u001b]0;title\u0007c\nd\u009b2Je')).toBe('abc de');
  });

  it('counts East Asian wide characters as two cells and never cuts one in half', () => {
    expect(cells('界界a')).toBe(5);
    expect(clipCells('界界界', 4)).toBe('界…');
    expect(cells(fitCells('界界界', 4))).toBe(4);
    expect(cells(fitCells('界界界', 5))).toBe(5);
  });

  it('measures every character as a walk by code point does, surrogates and wide ones included', () => {
    // The widths by code point (cells.ts walks UTF-16 units for speed): two in a wide range, else one.
    const ranges = [
      [0x1100, 0x115f],
      [0x2e80, 0x303e],
      [0x3041, 0x33ff],
      [0x3400, 0x4dbf],
      [0x4e00, 0x9fff],
      [0xa000, 0xa4cf],
      [0xac00, 0xd7a3],
      [0xf900, 0xfaff],
      [0xfe30, 0xfe4f],
      [0xff01, 0xff60],
      [0xffe0, 0xffe6],
    ];
    const wide = (point: number) => ranges.some(([low, high]) => point >= low! && point <= high!);
    const byPoint = (text: string) => [...text].reduce((n, c) => n + (wide(c.codePointAt(0)!) ? 2 : 1), 0);
    const samples = [
      '',
      'abc',
      '界界a',
      'a😀b',
      '\ud83d',
      'x\ude00y',
      '\ud83d\ud83d\ude00',
      '\u10ff\u1100\u115f\u1160',
    ];
    samples.push('ｱｲ\uffe6\uffe7', '\u2e7f\u2e80\u303e\u303f\u3040\u3041', '\ud7a3\ud7a4\ud7ff\ue000');
    // Every BMP unit once, and every unit before a low surrogate and after a high one.
    for (let code = 0; code <= 0xffff; code += 1) samples.push(String.fromCharCode(code, 0xde00, code));
    expect(samples.filter((text) => cells(text) !== byPoint(text))).toEqual([]);
  });

  it('keeps text with nothing to drop or replace as it is, and measures it in cells', () => {
    const plain = 'job j_12 · local w2:p12 ▌ █░ …';
    expect(displayText(plain)).toBe(plain);
    expect(cells(plain)).toBe([...plain].length);
  });

  it('replaces emoji and other characters of disputed width, and drops zero-width marks', () => {
    expect(displayText('ok😀 \u231a e\u0301\u200d!')).toBe(`ok${REPLACEMENT} ${REPLACEMENT} e!`);
  });

  it('pads and clips to exact widths', () => {
    expect(fitCells('abcdef', 4)).toBe('abc…');
    expect(fitCells('ab', 4)).toBe('ab  ');
    expect(clipCells('abc', 0)).toBe('');
  });
});

describe('colours at the admission thresholds', () => {
  it('turns memory yellow within 10% of the reserve and red past it', () => {
    const reserve = T.memory_reserve_bytes;
    expect(memoryLevel(reserve * MEMORY_WARN_MARGIN, 0, T)).toBe('ok');
    expect(memoryLevel(reserve * MEMORY_WARN_MARGIN - 1, 0, T)).toBe('warn');
    expect(memoryLevel(reserve, 0, T)).toBe('warn');
    expect(memoryLevel(reserve - 1, 0, T)).toBe('bad');
    // Each live reservation raises the reserve admission needs.
    expect(memoryLevel(reserve * 1.5, 1, T)).toBe('bad');
  });

  it('turns disk yellow below twice the minimum and red below it', () => {
    expect(diskLevel(30, T)).toBe('ok');
    expect(diskLevel(29.99, T)).toBe('warn');
    expect(diskLevel(15, T)).toBe('warn');
    expect(diskLevel(14.99, T)).toBe('bad');
  });

  it('gives the meter eight cells to an eighth, and the sparkline whole percents with a gap for a missing sample', () => {
    expect(meter(0)).toBe('░░░░░░░░');
    expect(meter(1)).toBe('████████');
    expect(meter(0.5)).toBe('████░░░░');
    expect(meter(1 / 16)).toBe('▌░░░░░░░');
    expect(meter(Number.NaN)).toBe('░░░░░░░░');
    expect(sparkPercents([0, 0.5, null, 1], 3)).toEqual([50, null, 100]);
    expect(sparkPercents([-3, 7, Number.NaN, 0.333], 9)).toEqual([0, 100, null, 33]);
    expect(sparkPercents([0.5], 0)).toEqual([]);
  });

  it('colours the meter line of a host by its levels', () => {
    const tight = host(0, {
      probe: { ...host(0).probe!, memory: { total_bytes: 8 * GIB, free_bytes: 2 * GIB } },
    });
    const frame = buildSidebar(state({ hosts: [tight] }), initialView(), NOW, 38, 40);
    const meterLine = frame.panels[0]!.lines[1]!;
    const roles = meterLine.segments.filter((s) => /^(2\.0G|40%)$/.test(s.text.trim())).map((s) => s.fg);
    expect(roles).toEqual(['red', 'green']);
    // Not by colour alone: the level is said in words too (the line drops its meter to keep them).
    expect(text(meterLine)).toMatch(/^ {2}free mem 2\.0G low disk 40% +$/);
    const roomy = buildSidebar(state(), initialView(), NOW, 38, 40).panels[0]!.lines[1]!;
    expect(text(roomy)).not.toContain('low');
  });
});

describe('the Hosts panel', () => {
  it('draws a card per host with the --line numbers and marker, and under a ▲ why it takes no work', () => {
    const refused = host(0, {
      eligible: false,
      reason: ['cpu: 0.5 free cores, needs 2', 'memory: 1.0 GiB free, needs 3.0 GiB (reserve for 1)'],
    });
    const frame = buildSidebar(state({ hosts: [refused] }), initialView(), NOW, 38, 40);
    const [line1, line2, line3] = panelText(frame, 'hosts');
    // The sparkline's cells are blank in the model: the app draws them with blessed-contrib.
    expect(line1).toBe(` local 2/8 ▲${' '.repeat(24)}`);
    const spark = frame.panels[0]!.lines[0]!.segments.at(-1)!;
    expect(spark).toMatchObject({ text: '     ', spark: [10, 50, 90, null, 100], fg: 'teal' });
    // Free memory and free disk, each said `free` (the meter is the used share).
    expect(line2).toBe('  mem █▌░░ 20G free · disk 40% free ');
    expect(line3).toBe('  ▲ cpu: 0.5 free cores, needs 2 (+1');
    expect(panelText(frame, 'hosts')[3]).toMatch(/^ {2}more\) +$/);
    for (const line of panelText(frame, 'hosts')) expect(cells(line)).toBe(36);
    // Every line of the card names its host, for a click and ⏎.
    expect(frame.panels[0]!.lines.every((line) => line.host === 'h0')).toBe(true);
  });

  it('keeps the meter at 60 columns and drops it at 30 rather than cut a figure', () => {
    const wide = buildSidebar(state(), initialView(), NOW, 60, 40);
    expect(panelText(wide, 'hosts')[1]).toMatch(/^ {2}mem ███░░░░░ 20G free · disk 40% free +$/);
    const narrow = buildSidebar(state(), initialView(), NOW, 30, 40);
    expect(panelText(narrow, 'hosts')[1]).toMatch(/^ {2}free mem 20G disk 40% +$/);
  });

  it('shows an unreachable host with ? and the age of its last snapshot, dimmed', () => {
    const away = host(1, { reachable: false, age_ms: 125_000, service: 'unknown' });
    const frame = buildSidebar(state({ hosts: [host(0), away] }), initialView(), NOW, 38, 40);
    const lines = frame.panels[0]!.lines;
    expect(text(lines[2]!)).toMatch(/^ host-1 2\/8 \? no reply 2m/);
    expect(lines[3]!.segments.filter((s) => s.text.trim()).every((s) => s.dim)).toBe(true);
  });

  it('folds to one line per host when the person asks, when the cards would not fit, and in a short pane', () => {
    const five = Array.from({ length: 5 }, (_, i) => host(i));
    const folded: ViewState = { ...initialView(), hostsFolded: true };
    expect(buildSidebar(state({ hosts: five }), folded, NOW, 38, 40).panels[0]!.lines).toHaveLength(5);
    const twenty = Array.from({ length: 20 }, (_, i) => host(i));
    const many = buildSidebar(state({ hosts: twenty }), initialView(), NOW, 38, 60);
    expect(many.panels[0]!.folded).toBe(true);
    // Free memory and free disk, never a used share beside a free one.
    expect(text(many.panels[0]!.lines[0]!)).toMatch(/^ local 2\/8 free mem 20G disk 40%/);
    const short = buildSidebar(state({ hosts: [host(0)] }), initialView(), NOW, 38, SHORT_PANE_ROWS - 1);
    expect(short.panels[0]!.folded).toBe(true);
    expect(
      buildSidebar(state({ hosts: [host(0)] }), initialView(), NOW, 38, SHORT_PANE_ROWS).panels[0]!.folded,
    ).toBe(false);
  });

  it('cuts hostile host labels to the card', () => {
    const hostile = host(0, { label: '\u001b[2J界界界界界界界界界界😀' });
    const frame = buildSidebar(state({ hosts: [hostile] }), initialView(), NOW, 38, 40);
    const line = panelText(frame, 'hosts')[0]!;
    expect(line).not.toContain('\u001b');
    expect(cells(line)).toBe(36);
  });
});

describe('the Agents & Jobs panel and the layout', () => {
  it('draws three-line cards under group headers, DONE folded, within the width', () => {
    const frame = buildSidebar(state({ board: jobsBoard(10) }), initialView(), NOW, 38, 80);
    const lines = panelText(frame, 'work');
    expect(lines[0]).toMatch(/^▾ ATTENTION 1 +$/);
    expect(lines[1]).toMatch(/^ {2}exit 2 {2}make t5/);
    expect(lines[2]).toMatch(/^ {2}job j5 · local w2:p5/);
    expect(lines.find((l) => l.startsWith('▸ DONE'))).toBe('▸ DONE 1'.padEnd(36));
    for (const line of lines) expect(cells(line)).toBe(36);
  });

  it('fits every panel into the screen, frames included, and scrolls the selection into view', () => {
    const s = state({ board: jobsBoard(50), hosts: Array.from({ length: 20 }, (_, i) => host(i)) });
    let view = ensureSelection(s, initialView());
    view = moveSelection(s, view, 30);
    const frame = buildSidebar(s, view, NOW, 38, 30);
    expect(frame.panels.reduce((sum, p) => sum + p.height, 0)).toBe(30);
    const work = frame.panels.find((p) => p.id === 'work')!;
    expect(work.lines.some((l) => l.row === view.selected)).toBe(true);
    expect(work.scroll).toBeGreaterThan(0);
  });

  it('keeps a row for the message line', () => {
    const frame = buildSidebar(state(), { ...initialView(), message: 'stopped j1' }, NOW, 38, 30);
    expect(frame.panels.reduce((sum, p) => sum + p.height, 0)).toBe(29);
  });
});

describe('the Todos panel', () => {
  const todos = {
    available: true as const,
    lines: {
      session: 's1',
      branch: null,
      revision: 3,
      current: 'write the parser',
      pane: 'w1:p1',
      sections: [
        { kind: 'progress', done: 2, total: 5 },
        { kind: 'now', title: 'NOW', lines: ['write the \u001b[1mparser'] },
        { kind: 'next', title: 'NEXT', lines: ['tests', 'docs'] },
        { kind: 'done', title: 'done', lines: ['plan', 'spike'] },
        { kind: 'dropped', title: 'dropped', lines: ['yak'] },
      ],
    },
  };

  it('shows progress, NOW, NEXT and one fold for done and dropped', () => {
    const frame = buildSidebar(state({ todos }), initialView(), NOW, 38, 60);
    expect(panelText(frame, 'todos').map((l) => l.trimEnd())).toEqual([
      `${progressBar(2, 5)} 2/5`,
      'NOW',
      '  • write the parser',
      'NEXT',
      '  • tests',
      '  • docs',
      '▸ done 2 · dropped 1',
    ]);
    const open = buildSidebar(state({ todos }), { ...initialView(), todosDoneOpen: true }, NOW, 38, 60);
    expect(
      panelText(open, 'todos')
        .slice(-3)
        .map((l) => l.trimEnd()),
    ).toEqual(['  ✓ plan', '  ✓ spike', '  ✗ yak']);
  });

  it('says in one line why a publication cannot be used', () => {
    const fifo = state({ todos: { available: false, reason: 'it is a FIFO' } });
    const frame = buildSidebar(fifo, initialView(), NOW, 38, 40);
    expect(panelText(frame, 'todos').map((l) => l.trimEnd())).toEqual(['todos unavailable: it is a FIFO']);
  });

  it('draws no Todos panel without a publication: its rows go to agents and jobs, with one dim line on todos', () => {
    const frame = buildSidebar(state(), initialView(), NOW, 38, 40);
    expect(frame.panels.map((p) => p.id)).toEqual(['hosts', 'work']);
    expect(frame.panels.reduce((sum, p) => sum + p.height, 0)).toBe(40);
    const work = panelText(frame, 'work').map((l) => l.trimEnd());
    const hint = work.findIndex((l) => l.startsWith('todos'));
    expect(work.slice(hint).join(' ').trim()).toBe("todos show here when Pi's todo list publishes them");
    // A full panel keeps its rows for cards: no hint then.
    const full = buildSidebar(state({ board: jobsBoard(30) }), initialView(), NOW, 38, 40);
    expect(full.panels.find((p) => p.id === 'work')!.lines.some((l) => text(l).includes('todos'))).toBe(
      false,
    );
  });
});

describe('keys, mouse and the menu', () => {
  it('tab cycles Hosts, Agents & Jobs, Todos, skipping a panel not drawn', () => {
    const view = initialView();
    expect(cyclePanel(view, 1).focus).toBe('todos');
    expect(cyclePanel(cyclePanel(view, 1), 1).focus).toBe('hosts');
    expect(cyclePanel(view, -1).focus).toBe('hosts');
    expect(cyclePanel(view, 1, ['hosts', 'work']).focus).toBe('hosts');
  });

  it('space folds what the focused panel holds', () => {
    const s = state({ board: jobsBoard(10) });
    const view = ensureSelection(s, initialView());
    expect(toggleFold(s, { ...view, focus: 'hosts' }).hostsFolded).toBe(true);
    expect(toggleFold(s, { ...view, focus: 'todos' }).todosDoneOpen).toBe(true);
    const folded = toggleFold(s, view);
    expect(folded.foldedGroups).toContain('group:attention');
    expect(folded.selected).not.toBe(view.selected);
  });

  it('an item with two cards (TO LAND and ATTENTION) is two stops for the arrows, one marked at a time', () => {
    // An open child idle on its branch with work to land: the board rule gives it both cards.
    const child = {
      id: 'i_child',
      kind: 'agent' as const,
      host: 'local',
      pane: 'w2:p9',
      owner: 'w1:p1',
      created_ms: NOW - 60_000,
      closed_ms: null,
      close_reason: null,
      job: null,
      ticket: null,
      name: 'parser',
    };
    const pane = {
      pane: 'w2:p9',
      agent: 'claude',
      state: 'idle',
      name: 'parser',
      model: null,
      stalled_since_ms: null,
      state_since_ms: NOW - 5_000,
    } as const;
    const land = {
      item: 'i_child',
      name: 'parser',
      host: 'local',
      branch: 'feat/parser',
      ahead: 1,
      dirty: false,
      observed_ms: NOW - 4_000,
    };
    const jobs = jobsBoard(2);
    const board = boardOf(
      {
        owner: 'w1:p1',
        items: [child],
        tickets: [],
        jobs: new Map(),
        agentPanes: new Map([[pane.pane, pane]]),
        toLand: [land],
      },
      NOW,
    );
    const below = jobs.groups.find((g) => g.id === 'running')!.rows;
    board.groups = board.groups.map((g) => (g.id === 'running' ? { ...g, rows: below } : g));
    const cardsOf = board.groups.flatMap((g) => g.rows.filter((r) => r.id === 'i_child').map(() => g.id));
    expect(cardsOf).toEqual(['to_land', 'attention']);
    const s = state({ board });
    const frame = (view: ViewState) => buildSidebar(s, view, NOW, 38, 60);
    // The texts of the marked lines: one card's, never both of the child's.
    const marked = (view: ViewState) =>
      frame(view)
        .panels.find((p) => p.id === 'work')!
        .lines.filter((l) => l.segments.some((seg) => seg.bg === 'surface0'))
        .map(text)
        .join('|');
    let view = ensureSelection(s, initialView());
    expect(frame(view).selected?.group).toBe('to_land');
    expect(marked(view)).toContain('to land');
    expect(marked(view)).not.toContain('idle without dogsled done');
    view = moveSelection(s, view, 1);
    expect(frame(view).selected?.group).toBe('attention');
    expect(marked(view)).toContain('idle without dogsled done');
    expect(marked(view)).not.toContain('to land');
    view = moveSelection(s, view, 1);
    expect(frame(view).selected).toMatchObject({ group: 'running', kind: 'job' });
    view = moveSelection(s, moveSelection(s, view, -1), -1);
    expect(frame(view).selected?.group).toBe('to_land');
  });

  it('the selection follows its card to the group it moves to, else stays on the same item', () => {
    const s = state({ board: jobsBoard(10) });
    const view = { ...ensureSelection(s, initialView()), selected: 'attention:job:j5' };
    const moved = jobsBoard(10);
    // j5 dismissed: its card is in DONE now (unfolded here, so it is still shown).
    const row = moved.groups.find((g) => g.id === 'attention')!.rows[0]!;
    moved.groups = moved.groups.map((g) =>
      g.id === 'attention'
        ? { ...g, rows: [] }
        : g.id === 'done'
          ? { ...g, rows: [...g.rows, { ...row, group: 'done' as const }] }
          : g,
    );
    const after = state({ board: moved });
    const kept = ensureSelection(after, { ...view, foldedGroups: [] });
    expect(buildSidebar(after, kept, NOW, 38, 60).selected).toMatchObject({ group: 'done', id: 'j5' });
  });

  it('a click selects the card under it, a double click activates it, a click on a fold toggles it', () => {
    const s = state({ board: jobsBoard(10) });
    const view = ensureSelection(s, initialView());
    const frame = buildSidebar(s, view, NOW, 38, 60);
    const work = frame.panels.find((p) => p.id === 'work')!;
    const y = work.top + 1 + work.lines.findIndex((l) => l.row === 'running:job:j3');
    const click = clickAt(s, { ...view, focus: 'hosts' }, frame, y, false);
    expect(click.view).toMatchObject({ focus: 'work', selected: 'running:job:j3' });
    expect(click.activate).toBeNull();
    expect(clickAt(s, view, frame, y + 2, true).activate?.id).toBe('j3');
    const doneY = work.top + 1 + work.lines.findIndex((l) => l.fold === 'group:done');
    expect(clickAt(s, view, frame, doneY, false).view.foldedGroups).not.toContain('group:done');
    expect(TODOS_FOLD).toBe('todos:done');
  });

  it('offers stop only for running jobs and cancel only for queued tickets, each asking first', () => {
    const rows = jobsBoard(10).groups.flatMap((g) => g.rows);
    const running = rows.find((r) => r.state === 'running')!;
    const menu = menuFor(running);
    expect(menu.map((e) => [e.action, e.enabled, e.confirm])).toEqual([
      ['read', true, false],
      ['send', false, false],
      ['dismiss', false, false],
      ['close', false, true],
      ['stop', true, true],
      ['cancel', false, true],
    ]);
    const ended = menuFor(rows.find((r) => r.group === 'attention')!);
    expect(ended.find((e) => e.action === 'dismiss')).toMatchObject({ enabled: true, confirm: false });
    expect(ended.find((e) => e.action === 'stop')).toMatchObject({
      enabled: false,
      note: 'the job is not running',
    });
  });

  it('offers a running child read, send and close (close asks first); a TO LAND child only read', () => {
    const child = {
      id: 'i_child',
      kind: 'agent' as const,
      host: 'local',
      pane: 'w3:p1',
      owner: 'w1:p1',
      created_ms: NOW - 60_000,
      closed_ms: null,
      close_reason: null,
      job: null,
      ticket: null,
      name: 'fixer',
      harness: 'claude',
    };
    const landing = [
      {
        item: 'i_gone',
        name: 'lander',
        host: 'local',
        repository: '/repo',
        branch: 'feat/x',
        ahead: 2,
        dirty: false,
        observed_ms: NOW - 1000,
      },
    ];
    const board = boardOf(
      { owner: 'w1:p1', items: [child], tickets: [], jobs: new Map(), toLand: landing },
      NOW,
    );
    const rows = board.groups.flatMap((g) => g.rows);
    const running = menuFor(rows.find((r) => r.item === 'i_child')!);
    expect(running.map((e) => [e.action, e.enabled, e.confirm])).toEqual([
      ['read', true, false],
      ['send', true, false],
      ['dismiss', false, false],
      ['close', true, true],
      ['stop', false, true],
      ['cancel', false, true],
    ]);
    const toLand = menuFor(rows.find((r) => r.group === 'to_land')!);
    expect(toLand.filter((e) => e.enabled).map((e) => e.action)).toEqual(['read']);
    expect(toLand.find((e) => e.action === 'close')?.note).toBe('the child has no open pane');
    const ticket = {
      id: 't_1',
      kind: 'job',
      owner: 'w1:p1',
      pin: null,
      created_ms: NOW - 5000,
      state: 'pending',
      state_ms: NOW - 5000,
      host: null,
      request: { command: ['make'] },
      error: null,
    };
    const queued = boardOf({ owner: 'w1:p1', items: [], tickets: [ticket], jobs: new Map() }, NOW);
    expect(menuFor(queued.groups.flatMap((g) => g.rows)[0]!).find((e) => e.action === 'read')).toMatchObject({
      enabled: false,
      note: 'a ticket has no output yet',
    });
  });
});
