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
  /** The host whose card this line belongs to (the Hosts panel), for clicks and ⏎. */
  host?: string;
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
  /** Why it takes no work (the headroom reasons `status` lists), empty when eligible. */
  reason: string[];
  free_cores: number | null;
  /** Why the last read of a peer failed; null when it answered. */
  unreachable: string | null;
  /** Its live reservations, its agent panes and its jobs, for the detail view. */
  reserved: Array<{ id: string; expires_ms: number; owner: string | null }>;
  agents: Array<{ pane: string; agent: string; state: string; name: string | null; model: string | null }>;
  jobs: SidebarJob[];
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

/** A job on a host, as its snapshot publishes it (running ones, and ended ones for a day). */
export interface SidebarJob {
  id: string;
  command: string[];
  owner: string | null;
  started_ms: number | null;
  ended_ms: number | null;
  exit_code: number | null;
  signal: string | null;
  reason: string | null;
}

/**
 * The owner's todos: Pi's publication, or why it cannot be used (a FIFO, another pane's), or no
 * publication at all (reason null: no Pi todos here, and no panel is drawn for them).
 */
export type TodoView = { available: true; lines: TodoLines } | { available: false; reason: string | null };

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
  /** When it was read: ages drawn later move on from it without reading again (absent: now). */
  read_ms?: number;
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

export function rowKey(row: Pick<BoardRow, 'kind' | 'id'>): string {
  return `${row.kind}:${row.id}`;
}
