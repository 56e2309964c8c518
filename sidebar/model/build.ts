// buildSidebar(state, view, now, width, height): the whole screen as three framed panels, top to
// bottom Hosts, Agents & Jobs, Todos. Heights: Hosts takes at most 40% of the screen and folds to
// one line per host by itself when its cards would not fit; Todos at most 30%; Agents & Jobs the rest
// (and every spare row). Each panel shows its lines from its scroll offset; the selected card is
// kept in view. Pure: the app calls it on every refresh and on every key.

import { type BoardRow, boardRows } from '../../service/core/board/board-rule.js';
import { clipCells, displayText, fitCells } from './cells.js';
import { hostLines } from './hosts.js';
import { todoLines } from './todos.js';
import {
  type Frame,
  type Line,
  type PanelId,
  type PanelView,
  rowKey,
  type SidebarState,
  type ViewState,
} from './types.js';
import { workLines } from './work.js';

/** Borders: a top and a bottom row per panel, and a column on each side. */
const FRAME_ROWS = 2;
const FRAME_COLS = 2;
const HOSTS_SHARE = 0.4;
const TODOS_SHARE = 0.3;
/** Every panel keeps at least one line inside its frame. */
const MIN_INNER = 1;
/** Below this many screen rows, hosts fold whatever the person chose. */
export const SHORT_PANE_ROWS = 24;

export function buildSidebar(
  state: SidebarState,
  view: ViewState,
  now: number,
  width: number,
  height: number,
): Frame {
  void now; // ages are computed by the readers; `now` is the frame's time for callers that redraw.
  const inner = Math.max(1, width - FRAME_COLS);
  const rows = Math.max(3 * (FRAME_ROWS + MIN_INNER), height - (view.message ? 1 : 0));
  const selected = selectedRow(state, view.selected);
  const selectedKey = selected ? rowKey(selected) : null;

  const hostsBudget = Math.max(MIN_INNER, Math.floor(rows * HOSTS_SHARE) - FRAME_ROWS);
  const cardLines = state.hosts.length * 2;
  const folded = view.hostsFolded || height < SHORT_PANE_ROWS || cardLines > hostsBudget;
  const hostBody = withProblems(
    state.problems,
    hostLines(state.hosts, inner, folded, state.thresholds),
    inner,
  );
  const todoBody = todoLines(state.todos, inner, view.todosDoneOpen);
  const workBody = workLines(state.board, inner, view.foldedGroups, selectedKey);

  const hostsInner = clampInner(hostBody.length, hostsBudget);
  const todosInner = clampInner(
    todoBody.length,
    Math.max(MIN_INNER, Math.floor(rows * TODOS_SHARE) - FRAME_ROWS),
  );
  const workInner = Math.max(MIN_INNER, rows - 3 * FRAME_ROWS - hostsInner - todosInner);

  const panels: PanelView[] = [];
  let top = 0;
  const add = (
    id: PanelId,
    title: string,
    body: Line[],
    innerRows: number,
    extra: Partial<PanelView> = {},
  ) => {
    const keep = id === 'work' && selectedKey ? lineOf(body, selectedKey) : undefined;
    // The last card pulls in what follows it (a folded group's header), so nothing hides below it.
    const last = keep !== undefined && !body.slice(keep + 3).some((line) => line.row !== undefined);
    const scroll = scrolled(last ? body.length : view.scroll[id], body.length, innerRows, keep);
    const range =
      body.length > innerRows
        ? ` ${scroll + 1}-${Math.min(body.length, scroll + innerRows)}/${body.length}`
        : '';
    // The focused panel is marked in text too, so it shows without colours (NO_COLOR). The label
    // sits in the top border between two corners and a dash on each side.
    const label = clipCells(
      displayText(`${view.focus === id ? '● ' : ''}${title}${range}`),
      Math.max(1, width - 6),
    );
    panels.push({
      id,
      title: label,
      top,
      height: innerRows + FRAME_ROWS,
      lines: body.slice(scroll, scroll + innerRows),
      total: body.length,
      scroll,
      ...extra,
    });
    top += innerRows + FRAME_ROWS;
  };
  add('hosts', `Hosts ${state.hosts.length}`, hostBody, hostsInner, { folded });
  add('work', workTitle(state), workBody, workInner);
  add('todos', todosTitle(state), todoBody, todosInner);
  return { width, height, panels, message: view.message, selected };
}

function clampInner(lines: number, budget: number): number {
  return Math.max(MIN_INNER, Math.min(lines, budget));
}

/** Read problems go first in the Hosts panel, one line each, so they are never hidden. */
function withProblems(problems: readonly string[], body: Line[], width: number): Line[] {
  if (problems.length === 0) return body;
  const lines = problems.map((p) => ({
    segments: [{ text: fitCells(`! ${displayText(p)}`, width), fg: 'red' as const }],
  }));
  return [...lines, ...body];
}

function workTitle(state: SidebarState): string {
  const count = state.board ? boardRows(state.board).filter((row) => row.group !== 'done').length : 0;
  return `Agents & Jobs ${count} · ${displayText(state.owner)}`;
}

function todosTitle(state: SidebarState): string {
  return state.todos.available ? 'Todos' : 'Todos (unavailable)';
}

/** The first line of the row `key`, if shown. */
function lineOf(lines: readonly Line[], key: string): number | undefined {
  const index = lines.findIndex((line) => line.row === key);
  return index < 0 ? undefined : index;
}

/** A scroll offset inside the body that keeps line `keep` (and the two after it, a card) in view. */
function scrolled(wanted: number, total: number, rows: number, keep: number | undefined): number {
  const max = Math.max(0, total - rows);
  let scroll = Math.min(Math.max(0, wanted), max);
  if (keep !== undefined) {
    if (keep < scroll) scroll = keep;
    else if (keep + 3 > scroll + rows) scroll = Math.min(max, keep + 3 - rows);
  }
  return scroll;
}

/** The selected row if it still exists on the board, else null. */
export function selectedRow(state: SidebarState, key: string | null): BoardRow | null {
  if (!state.board) return null;
  const rows = boardRows(state.board);
  return rows.find((row) => rowKey(row) === key) ?? null;
}
