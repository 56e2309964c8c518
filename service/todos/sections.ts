// todo-sections.json: the todos of this host's live agent panes, as Pi published them in
// todo-lines/<pane-hash>.json (protocol v3), made escape-free and bounded. The service rebuilds it
// (daemon/todos-worker.ts); peers read it through `dogsled host todos`. A live pane without a usable
// publication is listed as unavailable with the reason, so a reader can say why nothing shows.

import type { PaneTodos, TodoLines, TodoSection, TodoSections } from '../core/board/board-types.js';
import { clip, plainLine } from '../core/text/clean.js';
import { readState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import type { StatePaths } from '../state/paths.js';
import { panesWithTodoLines, readTodoLines } from '../state/records/sidebar-files.js';
import { TodoSectionsSchema } from '../state/schemas/sidebar-schemas.js';

/** Bounds on what one pane's todos may carry into the shared file. */
const TEXT_MAX = 300;
const LINES_MAX = 200;
const SECTIONS_MAX = 20;

export const EMPTY_SECTIONS: TodoSections = { version: 1, updated_ms: 0, panes: [] };

export interface LivePane {
  pane: string;
  terminal_id: string | null;
}

function cleanSection(section: TodoSection): TodoSection {
  const out: TodoSection = { kind: clip(plainLine(section.kind), TEXT_MAX) };
  if (section.title !== undefined) out.title = clip(plainLine(section.title), TEXT_MAX);
  if (section.lines !== undefined)
    out.lines = section.lines.slice(0, LINES_MAX).map((line) => clip(plainLine(line), TEXT_MAX));
  if (section.done !== undefined) out.done = section.done;
  if (section.total !== undefined) out.total = section.total;
  return out;
}

function available(live: LivePane, lines: TodoLines): PaneTodos {
  return {
    pane: live.pane,
    terminal_id: live.terminal_id,
    available: true,
    reason: null,
    session: clip(plainLine(lines.session), TEXT_MAX),
    branch: lines.branch === null ? null : clip(plainLine(lines.branch), TEXT_MAX),
    revision: lines.revision,
    current: lines.current === null ? null : clip(plainLine(lines.current), TEXT_MAX),
    sections: lines.sections.slice(0, SECTIONS_MAX).map(cleanSection),
  };
}

function unavailable(live: LivePane, reason: string): PaneTodos {
  return {
    pane: live.pane,
    terminal_id: live.terminal_id,
    available: false,
    reason: clip(plainLine(reason), TEXT_MAX),
    session: null,
    branch: null,
    revision: null,
    current: null,
    sections: [],
  };
}

/** The todos of `panes`, each read from its publication. */
export async function collectTodos(
  paths: StatePaths,
  panes: readonly LivePane[],
  now: number,
): Promise<TodoSections> {
  // Most agents publish nothing: one listing answers for them, where a stat each was, per pass,
  // most of what the worker cost a host with many quiet agents.
  const ids = panes.map((live) => live.pane);
  const published = await panesWithTodoLines(paths, ids);
  const entries = await Promise.all(
    panes.map(async (live) => {
      if (published && !published.has(live.pane)) return unavailable(live, 'no presentation');
      const read = await readTodoLines(paths, live.pane);
      if (read.kind === 'ok') return available(live, read.lines);
      return unavailable(live, read.kind === 'missing' ? 'no presentation' : read.reason);
    }),
  );
  return { version: 1, updated_ms: now, panes: entries };
}

/** Whether two documents say the same, apart from when they were made. */
export function sameTodos(a: TodoSections | undefined, b: TodoSections): boolean {
  return a !== undefined && JSON.stringify(a.panes) === JSON.stringify(b.panes);
}

export async function readTodoSections(io: StateIO): Promise<TodoSections> {
  return (await readState(io.paths.todoSections, TodoSectionsSchema, io)) ?? EMPTY_SECTIONS;
}
