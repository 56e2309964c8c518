// Todos publication (spec, "Pi"): what a compatible pi-todo shows, written for this pane to
// todo-lines/<pane-hash>.json in dogsled's state dir, protocol 3 ({protocol, session, branch,
// revision, current, pane, sections}), atomically (temp file, fsync, rename), so the sidebar and the
// service never read half a file; removed when the session shuts down. pi-todo is another program's
// extension: its display reaches this one over Pi's event bus, and is made escape-free and bounded
// here before it is written.

import { publishTodoLines, removeTodoLines, todoLinesPath } from '../../../service/actions/pi-extension.js';
import { clip, plainLine } from '../../../service/core/text/clean.js';
import { ownPane, type PiDeps, stateDir } from './deps.js';

/** pi-todo announces its display here (protocol 3), and answers a request for it on the other. */
export const TODO_DISPLAY_EVENT = 'pi-todo:display';
export const TODO_REQUEST_EVENT = 'pi-todo:request-display';
/** pi-todo stops providing a display (it unloads, or hands the display to no one): unpublish. */
export const TODO_RELEASE_EVENT = 'pi-todo:release-display';

const TEXT_MAX = 300;
const LINES_MAX = 200;
const SECTIONS_MAX = 20;

export interface TodoSection {
  kind: string;
  title?: string;
  lines?: string[];
  done?: number;
  total?: number;
}

export interface TodoDisplay {
  revision: number;
  branch: string | null;
  current: string | null;
  sections: TodoSection[];
}

export interface TodoLines extends TodoDisplay {
  protocol: 3;
  session: string;
  pane: string;
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return clip(plainLine(value), TEXT_MAX);
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** pi-todo's payload as a display, or undefined when it is not protocol 3. */
export function todoDisplay(payload: unknown): TodoDisplay | undefined {
  const p = payload as Record<string, unknown> | undefined;
  if (p?.protocol !== 3 || !Number.isSafeInteger(p.revision) || !Array.isArray(p.sections)) return undefined;
  const sections = p.sections.slice(0, SECTIONS_MAX).flatMap((raw) => {
    const s = raw as Record<string, unknown> | undefined;
    const kind = text(s?.kind);
    if (kind === undefined) return [];
    const section: TodoSection = { kind };
    const title = text(s?.title);
    if (title !== undefined) section.title = title;
    if (Array.isArray(s?.lines)) section.lines = s.lines.slice(0, LINES_MAX).map((line) => text(line) ?? '');
    const done = count(s?.done);
    const total = count(s?.total);
    if (done !== undefined) section.done = done;
    if (total !== undefined) section.total = total;
    return [section];
  });
  return {
    revision: p.revision as number,
    branch: text(p.branch) ?? null,
    current: text(p.current) ?? null,
    sections,
  };
}

/** The pane's publication file (service/actions/pi-extension.ts names it). */
export function todoLinesFile(deps: PiDeps, pane: string): string {
  return todoLinesPath(stateDir(deps), pane);
}

export class TodoPublisher {
  private latest: TodoDisplay | undefined;
  private published: { session: string; branch: string | null; revision: number } | undefined;
  private chain: Promise<void> = Promise.resolve();
  private wrote = false;

  constructor(
    private readonly deps: PiDeps,
    private readonly warn: (text: string) => void,
  ) {}

  /** What pi-todo shows now, for the widget (with or without a pane to publish for). */
  display(): TodoDisplay | undefined {
    return this.latest;
  }

  /**
   * A new display for `session`; older revisions of the same session branch are ignored. Todos
   * follow the active branch: another branch's display replaces this one whatever its revision.
   */
  update(display: TodoDisplay, session: string): Promise<void> {
    const same = this.published?.session === session && this.published.branch === display.branch;
    if (same && display.revision < (this.published?.revision ?? 0)) return this.chain;
    this.latest = display;
    this.published = { session, branch: display.branch, revision: display.revision };
    const pane = ownPane(this.deps);
    if (pane === undefined) return this.chain;
    const lines: TodoLines = { protocol: 3, session, pane, ...display };
    return this.serial(async () => {
      await publishTodoLines(stateDir(this.deps), pane, lines);
      this.wrote = true;
    });
  }

  /** Session shutdown, or pi-todo's release of the display: the pane's publication goes with it. */
  remove(): Promise<void> {
    const pane = ownPane(this.deps);
    this.latest = undefined;
    this.published = undefined;
    if (pane === undefined || !this.wrote) return this.chain;
    return this.serial(async () => {
      this.wrote = false;
      await removeTodoLines(stateDir(this.deps), pane);
    });
  }

  private serial(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(step).catch((error: unknown) => {
      this.warn(`todos: ${error instanceof Error ? error.message : String(error)}`);
    });
    return this.chain;
  }
}
