// What keys and the mouse do to the view, as pure transitions: tab cycles the panels drawn, arrows
// move the selection over the board's visible cards or the hosts, space folds what the focused panel
// holds (hosts to one line each, the selected card's group, the todos' done and dropped), a click
// focuses a panel and selects or folds the line under it, the wheel scrolls. The host detail view
// opens on a host, switches between the last hour and day, scrolls and closes. The menu's entries
// for a row are here too.

import { type BoardRow, boardRows } from '../../service/core/board/board-rule.js';
import { displayText } from './cells.js';
import { TODOS_FOLD } from './todos.js';
import {
  type Frame,
  findRow,
  PANELS,
  type PanelId,
  rowKey,
  type SidebarState,
  type ViewState,
} from './types.js';
import { groupFold } from './work.js';

/** Tab: the next panel of those drawn (`panels`, top to bottom). */
export function cyclePanel(view: ViewState, step: 1 | -1, panels: readonly PanelId[] = PANELS): ViewState {
  const index = Math.max(0, panels.indexOf(view.focus));
  const next = panels[(index + step + panels.length) % panels.length] as PanelId;
  return { ...view, focus: next };
}

/** Arrows over the Hosts panel: the next host (the first when none is selected yet). */
export function moveHost(state: SidebarState, view: ViewState, step: number): ViewState {
  const ids = state.hosts.map((host) => host.id);
  if (ids.length === 0) return { ...view, host: null };
  const index = ids.indexOf(view.host ?? '');
  const next = index < 0 ? 0 : Math.min(ids.length - 1, Math.max(0, index + step));
  return { ...view, host: ids[next] as string };
}

/** ⏎ on a host: its detail view, on the last hour. */
export function openDetail(view: ViewState, host: string): ViewState {
  return { ...view, host, detail: { host, window: 'hour', scroll: 0 } };
}

export function closeDetail(view: ViewState): ViewState {
  return { ...view, detail: null };
}

/** `w` in the detail view: the last day after the last hour, and back. */
export function switchWindow(view: ViewState): ViewState {
  if (!view.detail) return view;
  return { ...view, detail: { ...view.detail, window: view.detail.window === 'hour' ? 'day' : 'hour' } };
}

export function scrollDetail(view: ViewState, step: number): ViewState {
  if (!view.detail) return view;
  return { ...view, detail: { ...view.detail, scroll: Math.max(0, view.detail.scroll + step) } };
}

/** Rows whose cards are shown (their group is not folded), in board order. */
export function visibleRows(state: SidebarState, view: ViewState): BoardRow[] {
  if (!state.board) return [];
  return boardRows(state.board).filter((row) => !view.foldedGroups.includes(groupFold(row.group)));
}

/**
 * Keeps the selection on a visible row: the same card when it is still shown (or its item's card in
 * the group it moved to), else the first.
 */
export function ensureSelection(state: SidebarState, view: ViewState): ViewState {
  const rows = visibleRows(state, view);
  const row = findRow(rows, view.selected) ?? rows[0];
  const selected = row ? rowKey(row) : null;
  return selected === view.selected ? view : { ...view, selected };
}

export function moveSelection(state: SidebarState, view: ViewState, step: number): ViewState {
  const rows = visibleRows(state, view);
  if (rows.length === 0) return { ...view, selected: null };
  const current = findRow(rows, view.selected);
  const index = current ? rows.indexOf(current) : -1;
  const next = Math.min(rows.length - 1, Math.max(0, Math.max(index, 0) + step));
  return { ...view, selected: rowKey(rows[next] as BoardRow) };
}

export function scrollPanel(view: ViewState, panel: PanelId, step: number): ViewState {
  return { ...view, scroll: { ...view.scroll, [panel]: Math.max(0, view.scroll[panel] + step) } };
}

function toggled(list: readonly string[], key: string): string[] {
  return list.includes(key) ? list.filter((entry) => entry !== key) : [...list, key];
}

/** Space: fold or unfold what the focused panel holds. */
export function toggleFold(state: SidebarState, view: ViewState): ViewState {
  if (view.focus === 'hosts') return { ...view, hostsFolded: !view.hostsFolded };
  if (view.focus === 'todos') return { ...view, todosDoneOpen: !view.todosDoneOpen };
  const row = state.board ? findRow(boardRows(state.board), view.selected) : undefined;
  if (!row) return view;
  return ensureSelection(state, { ...view, foldedGroups: toggled(view.foldedGroups, groupFold(row.group)) });
}

export function toggleNamedFold(state: SidebarState, view: ViewState, fold: string): ViewState {
  if (fold === TODOS_FOLD) return { ...view, todosDoneOpen: !view.todosDoneOpen };
  return ensureSelection(state, { ...view, foldedGroups: toggled(view.foldedGroups, fold) });
}

export type Click = { view: ViewState; activate: BoardRow | null };

/**
 * A click at screen cell (x, y), both from 0: focuses the panel under it; on a card, selects it (and
 * with `double`, asks to activate it: ⏎); on a fold line, toggles the fold.
 */
export function clickAt(
  state: SidebarState,
  view: ViewState,
  frame: Frame,
  y: number,
  double: boolean,
): Click {
  const panel = frame.panels.find((p) => y >= p.top && y < p.top + p.height);
  if (!panel) return { view, activate: null };
  let next: ViewState = { ...view, focus: panel.id };
  const line = panel.lines[y - panel.top - 1];
  if (line?.host !== undefined) {
    next = { ...next, host: line.host };
    return { view: double ? openDetail(next, line.host) : next, activate: null };
  }
  if (line?.fold !== undefined && !double) next = toggleNamedFold(state, next, line.fold);
  if (line?.row === undefined) return { view: next, activate: null };
  next = { ...next, selected: line.row };
  const row = state.board ? (findRow(boardRows(state.board), line.row) ?? null) : null;
  return { view: next, activate: double ? row : null };
}

/** The wheel over a panel scrolls it; over the work panel it moves the selection. */
export function wheelAt(
  state: SidebarState,
  view: ViewState,
  frame: Frame,
  y: number,
  step: number,
): ViewState {
  const panel = frame.panels.find((p) => y >= p.top && y < p.top + p.height);
  if (!panel) return view;
  if (panel.id === 'work') return moveSelection(state, view, step);
  // Over the focused Hosts panel the wheel moves the selected host, which keeps itself in view.
  if (panel.id === 'hosts' && view.focus === 'hosts' && view.host !== null)
    return moveHost(state, view, step);
  return scrollPanel(view, panel.id, step);
}

export type MenuAction = 'read' | 'send' | 'dismiss' | 'close' | 'stop' | 'cancel';

export interface MenuEntry {
  action: MenuAction;
  label: string;
  enabled: boolean;
  /** Why it cannot be chosen, shown beside it. */
  note: string | null;
  /** Close, stop and cancel ask before they act. */
  confirm: boolean;
}

/** The menu for a row: every action, with those that do not apply saying why. */
export function menuFor(row: BoardRow): MenuEntry[] {
  const running = row.kind === 'job' && (row.state === 'running' || row.state === 'starting');
  const job = row.kind === 'job';
  const agent = row.kind === 'agent';
  // A child is reached through its pane; one that closed has none left to message or close.
  const reachable = agent && row.pane !== null && row.group !== 'done';
  const pending = row.kind === 'ticket' && row.state === 'queued';
  const entry = (action: MenuAction, enabled: boolean, note: string | null, confirm = false): MenuEntry => ({
    action,
    label: action,
    enabled,
    note: enabled ? null : note,
    confirm,
  });
  return [
    entry('read', job || agent, 'a ticket has no output yet'),
    entry('send', reachable, agent ? 'the child has no open pane' : 'only agents take messages'),
    entry('dismiss', row.group === 'attention', 'only ATTENTION rows are dismissed'),
    entry('close', reachable, agent ? 'the child has no open pane' : 'only agents are closed', true),
    entry('stop', running, job ? 'the job is not running' : 'only running jobs stop', true),
    entry(
      'cancel',
      pending,
      row.kind === 'ticket' ? 'only queued tickets cancel' : 'only tickets cancel',
      true,
    ),
  ];
}

/** What a confirmation asks, naming the row it acts on. */
export function question(action: MenuEntry['action'], row: BoardRow): string {
  if (action === 'stop') return `Stop job ${row.id}?`;
  if (action === 'cancel') return `Cancel ticket ${row.id}?`;
  return `Close ${displayText(row.title)} (${displayText(row.pane ?? row.id)})?`;
}
