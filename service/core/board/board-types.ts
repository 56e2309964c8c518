// The records of the board and the todos: boards/<tab-hash>.json (the docked board of a Herdr
// tab), board-seen.json (the rows owners dismissed), todo-lines/<pane-hash>.json (what Pi's
// pi-todo publishes for its pane, protocol v3) and todo-sections.json (the service's copy for live
// agent panes). The core owns them; sidebar-schemas.ts checks its schemas against them.

import type { RowKind } from './board-rule.js';

/** The board pane docked in one Herdr tab; `pane: null` once it was closed or found stale. */
export type BoardEntry = {
  version: 1;
  tab: string;
  pane: string | null;
  terminal_id: string | null;
  /** The owner pane the board shows. */
  owner: string | null;
  updated_ms: number;
};

/** One dismissal in board-seen.json: the owner's row (kind and id) in the state it was in (since_ms) when seen. */
export type BoardSeenEntry = {
  owner: string;
  kind: RowKind;
  id: string;
  since_ms: number | null;
  seen_ms: number;
};

/** board-seen.json: the ATTENTION rows owners dismissed (`board --dismiss`, the sidebar's `d`). */
export type BoardSeenFile = { version: 1; seen: BoardSeenEntry[] };

/** One section of pi-todo's display: `progress`, `now`, `next`, `done`, `dropped`, or another kind. */
export type TodoSection = {
  kind: string;
  title?: string;
  lines?: string[];
  /** `progress`: tasks done out of total. */
  done?: number;
  total?: number;
};

/** todo-lines/<pane-hash>.json, written atomically by the Pi extension (protocol v3). */
export type TodoLines = {
  protocol?: 3;
  session: string;
  branch: string | null;
  revision: number;
  current: string | null;
  pane: string;
  sections: TodoSection[];
};

/** One live agent pane's todos in todo-sections.json, or why they cannot be shown. */
export type PaneTodos = {
  pane: string;
  terminal_id: string | null;
  available: boolean;
  /** Set when not available: `no presentation`, `not a regular file`, `published for pane w1:p3`... */
  reason: string | null;
  session: string | null;
  branch: string | null;
  revision: number | null;
  current: string | null;
  sections: TodoSection[];
};

export type TodoSections = { version: 1; updated_ms: number; panes: PaneTodos[] };
