// `board --open` and `--toggle`: the caller's board docked at the left edge of its Herdr tab, 38
// cells wide. Herdr has no left placement (CONTRACT §5.5), so the board is a plugin pane split to
// the right of the tab's leftmost pane, swapped to its left and given the split's ratio. Herdr makes a
// new pane on every open, so boards/<tab-hash>.json remembers the tab's board (pane and terminal id),
// checked against the live pane before reuse; a stale entry is cleared before the next split. All of
// it runs under that file's lock, so two opens in one tab never make two boards. A lost entry (file
// removed or corrupt, an open killed before writing it) is found again by the board's tag (adoptBoard).
// tmux docks at the left natively (dockInTmux); the rest is the same.

import type { BoardEntry } from '../core/board/board-types.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { VERSION } from '../core/common/version.js';
import { installLines } from '../core/install/install-lines.js';
import { writeState } from '../state/engine/store.js';
import type { ProcessIO, StateIO } from '../state/io.js';
import { boardFile, updateBoardEntry } from '../state/records/sidebar-files.js';
import { BoardEntrySchema } from '../state/schemas/sidebar-schemas.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Layout, Pane, Rect } from '../terminal/port-records.js';
import { isTerminalError, needsPane, needsTerminal } from '../terminal/terminal-errors.js';
import type { TmuxTerminal } from '../terminal/tmux/tmux.js';

/** The board's width in cells beside Herdr's own sidebar (spec, "Pi"). */
export const BOARD_WIDTH = 38;
export const PLUGIN_ID = 'dogsled';
export const SIDEBAR_ENTRYPOINT = 'sidebar';
/** How the board pane learns whose work it shows (the plugin pane command reads it). */
export const OWNER_ENV = 'DOGSLED_OWNER';
/** The manifest's title of the sidebar pane: Herdr labels every plugin pane with it (CONTRACT §5.3). */
export const BOARD_TITLE = 'Dogsled';
/**
 * Herdr's pane list names no plugin id or entrypoint, and anyone can label a pane "Dogsled"
 * (pane.rename), so each board is tagged with this token (its owner) the moment Herdr opens it.
 */
export const BOARD_TOKEN = 'dogsled_board';
const BOARD_SOURCE = 'dogsled:board';

export type DockAction = 'opened' | 'reused' | 'closed';

export interface DockResult {
  action: DockAction;
  tab: string;
  /** The board pane (the closed one for `closed`). */
  pane: string;
  terminal_id: string;
  /** The ratio asked of Herdr for a new board, else null. */
  ratio: number | null;
  /** A registry entry that named a pane no longer live, cleared before this split. */
  stale: string | null;
}

export interface DockOptions {
  /** The caller's pane (Herdr's or tmux's): the board's owner and the tab it docks in. */
  caller: string | null;
  toggle: boolean;
  command: string;
}

export async function dockBoard(io: StateIO, port: TerminalPort, options: DockOptions): Promise<DockResult> {
  if (port.kind === 'headless') throw needsTerminal(options.command, port.why);
  if (options.caller === null) throw needsPane(options.command);
  const caller = await port.getPane(options.caller).catch((error: unknown) => {
    if (isTerminalError(error, 'pane_not_found'))
      throw new DogsledError(`caller pane ${options.caller} is not in this Herdr session`);
    throw error;
  });
  const tab = caller.tab_id;
  return updateBoardEntry(io, tab, async (entry) => {
    const live = entry?.pane ? await livePane(port, entry) : undefined;
    if (live && options.toggle) {
      await port.closePluginPane(live.pane_id);
      const next = cleared(entry as BoardEntry, io.now());
      return { result: result('closed', tab, live, null, null), next };
    }
    if (live) return { result: result('reused', tab, live, null, null) };
    const stale = entry?.pane ?? null;
    let found = await adoptBoard(port, caller);
    if (found && !options.toggle && port.kind !== 'tmux' && !(await dockedLeft(port, found.pane))) {
      // An open killed between its split and the swap left this board mid-dock: it is docked anew.
      await port.closePluginPane(found.pane.pane_id);
      found = undefined;
    }
    if (found) {
      const next = recorded(entry, tab, found.pane, found.owner, io.now());
      if (!options.toggle) return { result: result('reused', tab, found.pane, null, stale), next };
      await port.closePluginPane(found.pane.pane_id);
      return { result: result('closed', tab, found.pane, null, stale), next: cleared(next, io.now()) };
    }
    if (stale !== null) {
      // Cleared on disk first: if the split below fails, no entry names a pane that is gone.
      await updateCleared(io, tab, entry as BoardEntry);
    }
    const { pane, ratio } =
      port.kind === 'tmux' ? await dockInTmux(port, caller, io) : await splitLeft(port, caller, io);
    const next = recorded(entry, tab, pane, caller.pane_id, io.now());
    return { result: result('opened', tab, pane, ratio, stale), next };
  });
}

function recorded(
  entry: BoardEntry | undefined,
  tab: string,
  pane: Pane,
  owner: string,
  now: number,
): BoardEntry {
  return {
    ...(entry ?? {}),
    version: 1,
    tab,
    pane: pane.pane_id,
    terminal_id: pane.terminal_id,
    owner,
    updated_ms: now,
  };
}

/**
 * A board already in the caller's tab that no entry names: labelled with the manifest's title and
 * carrying our tag. A pane with only the label (a user's, renamed) is never taken; of several, the
 * first Herdr lists.
 */
async function adoptBoard(
  port: TerminalPort,
  caller: Pane,
): Promise<{ pane: Pane; owner: string } | undefined> {
  const panes = await port.listPanes(caller.workspace_id);
  const boards = panes.filter(
    (pane) =>
      pane.tab_id === caller.tab_id &&
      // tmux labels no pane; its token is a pane option only dogsled sets.
      (port.kind === 'tmux' || pane.label === BOARD_TITLE) &&
      pane.tokens?.[BOARD_TOKEN],
  );
  const pane = boards[0];
  if (!pane) return undefined;
  return { pane, owner: pane.tokens?.[BOARD_TOKEN] as string };
}

/** Whether the board is the leftmost pane of its tab, where a finished open leaves it. */
async function dockedLeft(port: TerminalPort, pane: Pane): Promise<boolean> {
  return leftmostPane(await port.paneLayout(pane.pane_id)).pane_id === pane.pane_id;
}

/** The tag that lets a lost entry be found again; without it the board still works, so a warning. */
async function tagBoard(port: TerminalPort, pane: Pane, owner: string, io: StateIO): Promise<void> {
  try {
    await port.reportPaneMetadata(pane.pane_id, { source: BOARD_SOURCE, tokens: { [BOARD_TOKEN]: owner } });
  } catch (error) {
    io.warn(
      `dogsled: warning: board: pane ${pane.pane_id} is not tagged (${messageOf(error)}), so a lost registry entry will not find it`,
    );
  }
}

function result(
  action: DockAction,
  tab: string,
  pane: Pane,
  ratio: number | null,
  stale: string | null,
): DockResult {
  return { action, tab, pane: pane.pane_id, terminal_id: pane.terminal_id, ratio, stale };
}

function cleared(entry: BoardEntry, now: number): BoardEntry {
  return { ...entry, pane: null, terminal_id: null, updated_ms: now };
}

/** We already hold the entry's lock, so the clear is a plain atomic write of the same file. */
async function updateCleared(io: StateIO, tab: string, entry: BoardEntry): Promise<void> {
  await writeState(boardFile(io.paths, tab), BoardEntrySchema, cleared(entry, io.now()));
}

/** The recorded board pane when it still exists with the same terminal (a reused id is not it). */
async function livePane(port: TerminalPort, entry: BoardEntry): Promise<Pane | undefined> {
  try {
    const pane = await port.getPane(entry.pane as string);
    return pane.terminal_id === entry.terminal_id ? pane : undefined;
  } catch (error) {
    if (isTerminalError(error, 'pane_not_found')) return undefined;
    throw error;
  }
}

/**
 * CONTRACT §5.5: split the leftmost pane of the caller's tab to the right with the board, swap the
 * board to the left, then give the split BOARD_WIDTH cells of its width.
 */
async function splitLeft(
  port: TerminalPort,
  caller: Pane,
  io: StateIO,
): Promise<{ pane: Pane; ratio: number }> {
  const before = await port.paneLayout(caller.pane_id);
  const leftmost = leftmostPane(before);
  const pane = await port
    .openPluginPane({
      pluginId: PLUGIN_ID,
      entrypoint: SIDEBAR_ENTRYPOINT,
      placement: 'split',
      direction: 'right',
      targetPaneId: leftmost.pane_id,
      focus: false,
      env: { [OWNER_ENV]: caller.pane_id },
    })
    .catch((error: unknown) => {
      // The board is the plugin's pane: say what to install rather than Herdr's bare refusal.
      if (!isTerminalError(error, 'plugin_not_found')) throw error;
      throw new DogsledError(
        `the ${PLUGIN_ID} plugin is not installed in Herdr: ${installLines(VERSION).herdr}`,
      );
    });
  if (!pane) throw new DogsledError('herdr opened the board without a pane (is its placement split?)');
  // Tagged first: killed past this point, the next open adopts this board instead of splitting again.
  await tagBoard(port, pane, caller.pane_id, io);
  const swap = await port.swapPane(pane.pane_id, 'left');
  const split = swap.layout.splits.find((s) => s.direction === 'right' && sameRect(s.rect, leftmost.rect));
  if (!split) throw new DogsledError(`cannot find the split herdr made for board pane ${pane.pane_id}`);
  const ratio = BOARD_WIDTH / split.rect.width;
  await port.setSplitRatio(pane.pane_id, splitPath(split.id), ratio);
  return { pane, ratio };
}

/**
 * tmux docks natively: a full-height split at the window's left edge, BOARD_WIDTH cells wide
 * (`split-window -hbf -l 38`), whose program is `dogsled sidebar` for the caller.
 */
async function dockInTmux(
  port: TerminalPort,
  caller: Pane,
  io: StateIO,
): Promise<{ pane: Pane; ratio: null }> {
  const { selfInvocation } = await import('../process/self-invocation.js');
  const pane = await (port as TmuxTerminal).dockLeft({
    targetPaneId: caller.pane_id,
    width: BOARD_WIDTH,
    argv: [...selfInvocation(), 'sidebar', '--owner', caller.pane_id],
    env: { [OWNER_ENV]: caller.pane_id, DOGSLED_STATE: io.paths.dir },
    ...(caller.cwd ? { cwd: caller.cwd } : {}),
  });
  await tagBoard(port, pane, caller.pane_id, io);
  return { pane, ratio: null };
}

/** The pane at the tab's left edge, the topmost of them: the one whose column the board joins. */
export function leftmostPane(layout: Layout): Layout['panes'][number] {
  const sorted = [...layout.panes].sort((a, b) => a.rect.x - b.rect.x || a.rect.y - b.rect.y);
  const first = sorted[0];
  if (!first) throw new DogsledError(`tab ${layout.tab_id} has no panes in its layout`);
  return first;
}

function sameRect(a: Rect, b: Rect): boolean {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}

/** `split_<i>_root` is the root ([]); `split_<i>_0110` names the path from it, 1 = second child. */
export function splitPath(id: string): boolean[] {
  const match = /^split_\d+_(root|[01]+)$/.exec(id);
  if (!match) throw new DogsledError(`herdr named a split "${id}", which is not a split path`);
  const path = match[1] as string;
  return path === 'root' ? [] : [...path].map((bit) => bit === '1');
}

/** `board --open|--toggle` for the calling process: its Herdr (io.env, io.home), its pane. */
export async function dockCallerBoard(io: ProcessIO, toggle: boolean): Promise<DockResult> {
  const command = toggle ? 'board --toggle' : 'board --open';
  const { openTerminal } = await import('../terminal/open.js');
  const { callerPane, pluginContextPane } = await import('../terminal/herdr/herdr-env.js');
  const port = await openTerminal({
    env: io.env,
    home: io.home,
    commandName: command,
    warn: io.warn,
  });
  // The plugin's toggle action runs outside any pane: it docks in the tab of the pane Herdr had focused.
  const caller = callerPane(io.env) ?? pluginContextPane(io.env) ?? null;
  return dockBoard(io, port, { caller, toggle, command });
}
