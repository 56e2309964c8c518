// The sidebar's keys and mouse, turned into view transitions (model/view.ts), the menu (menu.ts), ⏎
// (switch to a child's pane; on a host, its detail view) and `d` (dismiss an ATTENTION row). While a
// modal is up, keys and clicks go to it: any key or click closes the read popup, q and escape close
// any modal, y and n answer a confirmation. While the detail view is up, w switches its window,
// arrows scroll it, and q, escape, ⏎ or a click close it.

import type { BoardRow } from '../service/core/board/board-rule.js';
import type { Board, Screen } from './board.js';
import type { Modals } from './menu.js';
import { panelIds } from './model/build.js';
import type { SidebarState } from './model/types.js';
import {
  clickAt,
  closeDetail,
  cyclePanel,
  moveHost,
  moveSelection,
  openDetail,
  scrollDetail,
  scrollPanel,
  switchWindow,
  toggleFold,
  wheelAt,
} from './model/view.js';

/** Two clicks on one line this close together are a double click. */
const DOUBLE_CLICK_MS = 400;

export function bindInput(board: Board, modals: Modals, quit: () => void): void {
  bindKeys(board, modals, quit);
  splitMouseReports(board.screen);
  board.screen.enableMouse();
  let lastClick = { at: 0, y: -1 };
  board.screen.on('mouse', (event) => {
    // blessed's types know neither the wheel actions nor the button it reports.
    const data = event as unknown as { action: string; y: number; button?: string };
    if (!board.state || !board.frame) return;
    if (modals.open) {
      if (data.action === 'mousedown' && modals.open === 'read') modals.close();
      return;
    }
    if (board.view.detail) {
      if (data.action === 'wheelup' || data.action === 'wheeldown') {
        board.setView(scrollDetail(board.view, data.action === 'wheelup' ? -1 : 1));
      } else if (data.action === 'mousedown') board.setView(closeDetail(board.view));
      return;
    }
    if (data.action === 'wheelup' || data.action === 'wheeldown') {
      board.setView(
        wheelAt(board.state, board.view, board.frame, data.y, data.action === 'wheelup' ? -1 : 1),
      );
      return;
    }
    if (data.action !== 'mousedown' || (data.button && data.button !== 'left')) return;
    const now = Date.now();
    const double = lastClick.y === data.y && now - lastClick.at < DOUBLE_CLICK_MS;
    lastClick = double ? { at: 0, y: -1 } : { at: now, y: data.y };
    const click = clickAt(board.state, board.view, board.frame, data.y, double);
    board.setView(click.view);
    if (click.activate) void activate(board, click.activate);
  });
}

function bindKeys(board: Board, modals: Modals, quit: () => void): void {
  const { screen } = board;
  const when = (fn: () => void, inDetail?: () => void) => () => {
    // Any key but the menu's own closes the read popup.
    if (modals.open === 'read') modals.close();
    else if (modals.open || !board.state) return;
    else if (board.view.detail) inDetail?.();
    else fn();
  };
  const close = () => board.setView(closeDetail(board.view));
  screen.key(['q', 'C-c'], () => {
    if (modals.open) modals.close();
    else if (board.view.detail) close();
    else quit();
  });
  screen.key(['escape'], () => {
    if (modals.open) modals.close();
    else if (board.view.detail) close();
  });
  const step = (delta: number) => () => {
    const state = board.state as SidebarState;
    if (board.view.focus === 'work') board.setView(moveSelection(state, board.view, delta));
    else if (board.view.focus === 'hosts') board.setView(moveHost(state, board.view, delta));
    else board.setView(scrollPanel(board.view, board.view.focus, delta));
  };
  const scroll = (delta: number) => () => board.setView(scrollDetail(board.view, delta));
  const panels = () => panelIds(board.state as SidebarState);
  const keys: Array<[string[], () => void, (() => void)?]> = [
    [['tab'], () => board.setView(cyclePanel(board.view, 1, panels()))],
    [['S-tab'], () => board.setView(cyclePanel(board.view, -1, panels()))],
    [['down', 'j'], step(1), scroll(1)],
    [['up', 'k'], step(-1), scroll(-1)],
    [['pagedown'], step(5), scroll(5)],
    [['pageup'], step(-5), scroll(-5)],
    [['space'], () => board.setView(toggleFold(board.state as SidebarState, board.view))],
    // blessed reports ⏎ as `enter` and then `return`: bound to both, one ⏎ focused the pane
    // twice, and the `return` of a ⏎ that chose a menu entry focused the pane behind the menu.
    [['enter'], () => void activate(board), close],
    [['m'], () => modals.openMenu()],
    [['d'], () => void dismiss(board)],
    [['w'], () => undefined, () => board.setView(switchWindow(board.view))],
  ];
  for (const [names, action, inDetail] of keys) screen.key(names, when(action, inDetail));
  screen.key(['y'], () => modals.confirmed(true));
  screen.key(['n'], () => modals.confirmed(false));
}

/** ⏎: on a card, the terminal switched to its pane; on a host, the host's detail view. */
async function activate(board: Board, row: BoardRow | null = board.frame?.selected ?? null): Promise<void> {
  if (board.view.focus === 'hosts') {
    const host = board.view.host ?? board.state?.hosts[0]?.id ?? null;
    if (host !== null) board.setView(openDetail(board.view, host));
    return;
  }
  if (!row || board.view.focus !== 'work') return;
  board.say(await board.actions.jump(row));
}

/** `d`: the selected ATTENTION row marked seen (it moves to DONE); any other row says why not. */
export async function dismiss(board: Board): Promise<void> {
  const row = board.view.focus === 'work' ? (board.frame?.selected ?? null) : null;
  if (!row) {
    board.say('select an ATTENTION row first');
    return;
  }
  if (row.group !== 'attention') {
    board.say(`only ATTENTION rows are dismissed (${row.kind} ${row.id} is not)`);
    return;
  }
  board.say(await board.actions.dismiss(board.state?.owner ?? '', row));
  await board.reload();
}

/**
 * blessed parses one mouse report per read from the terminal and drops the rest, so the second
 * press of a double click that arrives in the same read as the first (a busy process, a fast
 * mouse) was lost. Each report of a read made only of SGR mouse reports goes to blessed on its own.
 */
function splitMouseReports(screen: Screen): void {
  const program = screen.program as unknown as { _bindMouse(text: string, data: Buffer): void };
  const parse = program._bindMouse.bind(program);
  program._bindMouse = (text, data) => {
    const reports = typeof text === 'string' ? text.match(/\u001b\[<\d+;\d+;\d+[mM]/g) : null;
    if (!reports || reports.length < 2 || reports.join('') !== text) return parse(text, data);
    for (const report of reports) parse(report, Buffer.from(report));
  };
}
