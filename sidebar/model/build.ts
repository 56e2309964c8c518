// buildSidebar(state, view, now, width, height): the whole screen as framed panels, top to bottom
// Hosts, Agents & Jobs and, when the owner has a todo publication, Todos. Heights: Hosts takes at most
// 40% of the screen and folds to one line per host by itself when its cards would not fit; Todos at
// most 30%; Agents & Jobs the rest (and every spare row). Without a publication there is no Todos
// panel: its rows go to agents and jobs, which end with one dim line on where todos come from when
// a row is spare. Each panel shows its lines from its scroll offset; the selected card is kept in
// view. Ages are drawn as of `now` (agedState), so a redraw alone moves them on. Pure: the app calls
// it on every refresh, every key and every tick, with a CardMemo (card-memo.ts) that keeps the cards a
// redraw of the same read would build again.

import { type BoardRow, boardRows } from '../../service/core/board/board-rule.js';
import type { CardMemo } from './card-memo.js';
import { clipCells, displayText, fitCells, wrapWords } from './cells.js';
import { hostLines } from './hosts.js';
import { TODOS_HINT, todoLines } from './todos.js';
import {
  type Frame,
  findRow,
  type Line,
  type PanelId,
  type PanelView,
  rowKey,
  type SidebarState,
  type ViewState,
} from './types.js';
import { ensureSelection } from './view.js';
import { workLines } from './work.js';

/** Borders: a top and a bottom row per panel, and a column on each side. */
const FRAME_ROWS = 2;
const FRAME_COLS = 2;
const HOSTS_SHARE = 0.4;
const TODOS_SHARE = 0.3;
/** A host's card: its head line and its meter line, then any reasons (model/hosts.ts). */
const MIN_CARD_LINES = 2;
/** Every panel keeps at least one line inside its frame. */
const MIN_INNER = 1;
/** A message takes at most this many rows under the panels (what is left of it is cut). */
const MESSAGE_ROWS = 3;
/** Below this many screen rows, hosts fold whatever the person chose. */
export const SHORT_PANE_ROWS = 24;

/** Whether the owner has todos to show (or a publication that cannot be read, which says why). */
export function hasTodos(state: SidebarState): boolean {
  return state.todos.available || state.todos.reason !== null;
}

/** The panels drawn for this state, top to bottom: what tab cycles through. */
export function panelIds(state: SidebarState): PanelId[] {
  return hasTodos(state) ? ['hosts', 'work', 'todos'] : ['hosts', 'work'];
}

/** The view after a read: its selection on a shown card, its focus on a panel the read shows. */
export function viewAfterRead(state: SidebarState, view: ViewState): ViewState {
  const settled = ensureSelection(state, view);
  return panelIds(state).includes(settled.focus) ? settled : { ...settled, focus: 'work' };
}

export function buildSidebar(
  state: SidebarState,
  view: ViewState,
  now: number,
  width: number,
  height: number,
  memo?: CardMemo,
): Frame {
  memo?.begin(state);
  state = agedState(state, now);
  const ids = panelIds(state);
  const todos = ids.includes('todos');
  const inner = Math.max(1, width - FRAME_COLS);
  const message = view.message
    ? wrapWords(displayText(view.message), width)
        .slice(0, MESSAGE_ROWS)
        .map((line) => fitCells(line, width))
    : [];
  const rows = Math.max(ids.length * (FRAME_ROWS + MIN_INNER), height - message.length);
  const selected = selectedRow(state, view.selected);
  const selectedKey = selected ? rowKey(selected) : null;

  const hostsBudget = Math.max(MIN_INNER, Math.floor(rows * HOSTS_SHARE) - FRAME_ROWS);
  // A card is two lines at least: more hosts than that fold without their cards being built.
  const cards =
    view.hostsFolded || height < SHORT_PANE_ROWS || state.hosts.length * MIN_CARD_LINES > hostsBudget
      ? null
      : hostLines(state.hosts, inner, false, state.thresholds, view.host);
  const folded = cards === null || cards.length > hostsBudget;
  const hostBody = withProblems(
    state.problems,
    folded || cards === null ? hostLines(state.hosts, inner, true, state.thresholds, view.host) : cards,
    inner,
  );
  const todoBody = todos ? todoLines(state.todos, inner, view.todosDoneOpen) : [];
  const workBody = workLines(state.board, inner, view.foldedGroups, selectedKey, state.hosts, memo);

  const hostsInner = clampInner(hostBody.length, hostsBudget);
  const todosInner = todos
    ? clampInner(todoBody.length, Math.max(MIN_INNER, Math.floor(rows * TODOS_SHARE) - FRAME_ROWS))
    : 0;
  const workInner = Math.max(MIN_INNER, rows - ids.length * FRAME_ROWS - hostsInner - todosInner);
  if (!todos && workBody.length < workInner) {
    const hint = wrapWords(TODOS_HINT, inner);
    if (workBody.length + 1 + hint.length <= workInner) {
      workBody.push({ segments: [{ text: ' '.repeat(inner) }] });
      for (const chunk of hint)
        workBody.push({ segments: [{ text: fitCells(chunk, inner), fg: 'overlay0' }] });
    }
  }

  const panels: PanelView[] = [];
  let top = 0;
  const add = (
    id: PanelId,
    title: string,
    body: Line[],
    innerRows: number,
    extra: Partial<PanelView> = {},
  ) => {
    const keep = keptLines(id, body, selectedKey, view.focus === 'hosts' ? view.host : null);
    const scroll = scrolled(view.scroll[id], body.length, innerRows, keep);
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
  if (todos) add('todos', todosTitle(state), todoBody, todosInner);
  return { width, height, panels, message, selected };
}

function clampInner(lines: number, budget: number): number {
  return Math.max(MIN_INNER, Math.min(lines, budget));
}

/** Read problems go first in the Hosts panel, wrapped whole, so they are never hidden or cut. */
function withProblems(problems: readonly string[], body: Line[], width: number): Line[] {
  if (problems.length === 0) return body;
  const lines = problems.flatMap((p) =>
    wrapWords(`! ${displayText(p)}`, width).map((chunk) => ({
      segments: [{ text: fitCells(chunk, width), fg: 'red' as const }],
    })),
  );
  return [...lines, ...body];
}

function workTitle(state: SidebarState): string {
  const count = state.board ? boardRows(state.board).filter((row) => row.group !== 'done').length : 0;
  return `Agents & Jobs ${count} · ${displayText(state.owner)}`;
}

function todosTitle(state: SidebarState): string {
  return state.todos.available ? 'Todos' : 'Todos (unavailable)';
}

/**
 * The lines of the selected card or host card that must be in view, first to last; the last card of
 * the work panel pulls in what follows it (a folded group's header), so nothing hides below it.
 */
function keptLines(
  id: PanelId,
  body: readonly Line[],
  row: string | null,
  host: string | null,
): { first: number; last: number } | undefined {
  const match = (line: Line) =>
    id === 'work' ? row !== null && line.row === row : host !== null && line.host === host;
  if (id === 'todos') return undefined;
  const first = body.findIndex(match);
  if (first < 0) return undefined;
  let last = first;
  while (last + 1 < body.length && match(body[last + 1] as Line)) last += 1;
  if (id === 'work' && !body.slice(last + 1).some((line) => line.row !== undefined)) last = body.length - 1;
  return { first, last };
}

/** A scroll offset inside the body that keeps `keep` in view (its first line when it cannot all fit). */
function scrolled(
  wanted: number,
  total: number,
  rows: number,
  keep: { first: number; last: number } | undefined,
): number {
  const max = Math.max(0, total - rows);
  let scroll = Math.min(Math.max(0, wanted), max);
  if (keep !== undefined) {
    if (keep.last + 1 > scroll + rows) scroll = Math.min(max, keep.last + 1 - rows);
    if (keep.first < scroll) scroll = keep.first;
  }
  return scroll;
}

/**
 * The state as it reads at `now`: every age the readers computed at `read_ms` moved on by the time
 * since, so a redraw keeps ages current without reading the files again.
 */
export function agedState(state: SidebarState, now: number): SidebarState {
  const elapsed = state.read_ms === undefined ? 0 : Math.max(0, now - state.read_ms);
  if (elapsed === 0) return state;
  const older = (age: number | null) => (age === null ? null : age + elapsed);
  return {
    ...state,
    read_ms: now,
    hosts: state.hosts.map((host) => ({ ...host, age_ms: older(host.age_ms) })),
    board: state.board && {
      ...state.board,
      groups: state.board.groups.map((group) => ({
        ...group,
        rows: group.rows.map((row) => ({ ...row, age_ms: older(row.age_ms) })),
      })),
    },
  };
}

/** The selected row if it still exists on the board, else null. */
export function selectedRow(state: SidebarState, key: string | null): BoardRow | null {
  if (!state.board) return null;
  const rows = boardRows(state.board);
  return findRow(rows, key) ?? null;
}
