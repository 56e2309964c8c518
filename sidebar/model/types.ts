// The sidebar's row model: what the app reads (SidebarState), what the person did (ViewState), and
// what is drawn (Frame: three panels of lines made of segments with semantic colour roles). The
// model never names a colour or touches a terminal; app.ts maps roles to the theme's colours.

import type { Board, BoardRow } from '../../service/core/board/board-rule.js';
import type { TodoLines } from '../../service/core/board/board-types.js';
import type { HostFacts } from '../../service/core/fleet/fleet-types.js';

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
}

export interface SidebarHost {
  id: string;
  label: string;
  local: boolean;
  reachable: boolean;
  service: 'up' | 'down' | 'unknown';
  eligible: boolean;
  age_ms: number | null;
  reservations: number;
  probe: {
    cores: number;
    busy: number | null;
    load1: number;
    memory: { total_bytes: number; free_bytes: number };
    disk: { total_bytes: number; free_bytes: number };
  } | null;
  /** Busy fractions of the last samples, oldest first (null: no CPU sample then). */
  busy_history: Array<number | null>;
  /** What the host is (OS, CPU, memory, GPUs), as `status` shows it; absent until its service read it. */
  facts?: HostFacts | null;
}

export type TodoView = { available: true; lines: TodoLines } | { available: false; reason: string };

export interface Thresholds {
  memory_reserve_bytes: number;
  disk_free_min_percent: number;
}

export interface SidebarState {
  owner: string;
  hosts: SidebarHost[];
  /** null when it could not be read; `problems` says why. */
  board: Board | null;
  todos: TodoView;
  thresholds: Thresholds;
  /** Read problems, one line each, shown at the top of the panel they concern. */
  problems: string[];
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
  /** First visible line of each panel. */
  scroll: Record<PanelId, number>;
  /** A transient message for the last screen line (an action's outcome), else null. */
  message: string | null;
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
  message: string | null;
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
    scroll: { hosts: 0, work: 0, todos: 0 },
    message: null,
  };
}

export function rowKey(row: Pick<BoardRow, 'kind' | 'id'>): string {
  return `${row.kind}:${row.id}`;
}
