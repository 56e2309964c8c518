import type { BoardRow } from '../../service/core/board/board-rule.js';

export type {
  SidebarHost,
  SidebarJob,
  SidebarState,
  Thresholds,
  TodoView,
} from '../../service/actions/sidebar-state.js';

/** Herdr's theme tokens (CONTRACT §7) used as colour roles. */
export type Role =
  | 'accent'
  | 'panel_bg'
  | 'surface0'
  | 'surface1'
  | 'surface_dim'
  | 'overlay0'
  | 'overlay1'
  | 'text'
  | 'subtext0'
  | 'mauve'
  | 'green'
  | 'yellow'
  | 'red'
  | 'blue'
  | 'teal'
  | 'peach';

export interface Segment {
  text: string;
  fg?: Role;
  bg?: Role;
  bold?: boolean;
  /** Unreachable hosts: drawn dim (and inverse-free) whatever the theme. */
  dim?: boolean;
  /** With no colours (NO_COLOR), pills and the selection are drawn inverse. */
  inverse?: boolean;
  /**
   * Busy percents (null: no sample) the app draws into these cells as a sparkline, one cell each;
   * `text` holds one space per value (what the model measures, and what a failed draw shows).
   */
  spark?: Array<number | null>;
}

/** One line of a panel, exactly the panel's inner width in cells. */
export interface Line {
  segments: Segment[];
  /** The board row this line belongs to, for clicks and ⏎. */
  row?: string;
  /** A fold this line toggles when clicked or chosen with space. */
  fold?: string;
  /** The host whose card this line belongs to (the Hosts panel), for clicks and ⏎. */
  host?: string;
}

export type PanelId = 'hosts' | 'work' | 'todos';
export const PANELS: readonly PanelId[] = ['hosts', 'work', 'todos'];

export interface ViewState {
  focus: PanelId;
  /** Hosts folded to one line each by the person (space); short panes fold by themselves. */
  hostsFolded: boolean;
  /** Board groups folded by the person; DONE starts folded. */
  foldedGroups: string[];
  /** Todos' done and dropped sections unfolded. */
  todosDoneOpen: boolean;
  /** The selected board row (`kind:id`), kept across refreshes. */
  selected: string | null;
  /** The selected host (its id) in the Hosts panel, kept across refreshes. */
  host: string | null;
  /** The host detail view (⏎ on a host), over the whole screen, or null. */
  detail: DetailView | null;
  /** First visible line of each panel. */
  scroll: Record<PanelId, number>;
  /** A transient message for the last screen line (an action's outcome), else null. */
  message: string | null;
}

/** Which samples the detail view's charts cover. */
export type HistoryWindow = 'hour' | 'day';

export interface DetailView {
  host: string;
  window: HistoryWindow;
  /** First visible line of its text. */
  scroll: number;
}

export interface PanelView {
  id: PanelId;
  /** The label in the top border: focus mark, title and the visible range when scrolled, clipped. */
  title: string;
  /** Rows of the screen this panel takes, borders included. */
  top: number;
  height: number;
  /** The visible lines (inner height of them at most), already scrolled. */
  lines: Line[];
  /** Total lines before scrolling, and the scroll offset used. */
  total: number;
  scroll: number;
  /** Hosts shown one line each. */
  folded?: boolean;
}

export interface Frame {
  width: number;
  height: number;
  panels: PanelView[];
  /** The message under the panels, wrapped whole (at most MESSAGE_ROWS lines). */
  message: string[];
  /** The selected row after this build (it may have moved to stay on an existing row). */
  selected: BoardRow | null;
}

export function initialView(): ViewState {
  return {
    focus: 'work',
    hostsFolded: false,
    foldedGroups: ['group:done'],
    todosDoneOpen: false,
    selected: null,
    host: null,
    detail: null,
    scroll: { hosts: 0, work: 0, todos: 0 },
    message: null,
  };
}

/**
 * A card's key: its group, kind and id. One item can have two cards at once (an open child idle on a
 * branch with work has TO LAND and ATTENTION, as the board rule says), so its kind and id alone
 * marked both as selected and an arrow could never step from one to the other.
 */
export function rowKey(row: Pick<BoardRow, 'group' | 'kind' | 'id'>): string {
  return `${row.group}:${row.kind}:${row.id}`;
}

/**
 * The card `key` names among `rows`: that card, else the same item's card in another group (the
 * card moved: dismissed to DONE, a child that started working again), so a selection follows it.
 */
export function findRow<T extends Pick<BoardRow, 'group' | 'kind' | 'id'>>(
  rows: readonly T[],
  key: string | null,
): T | undefined {
  if (key === null) return undefined;
  const exact = rows.find((row) => rowKey(row) === key);
  if (exact) return exact;
  const item = key.slice(key.indexOf(':') + 1);
  return rows.find((row) => `${row.kind}:${row.id}` === item);
}
