// The widget Pi draws above the editor when it is not in Herdr (spec, "Pi"): host meters, the
// current task, and the owner's work groups; collapsed to a few lines, expanded in place by /work
// or Alt+W into one of two views, Work (the selectable rows, DONE folded) and Todos. Pure: it turns
// what `status --json`, `board --json` and pi-todo gave, and the keys' WidgetView, into lines; the
// refresher in extension.ts reads them every ten seconds, only inside a Herdr pane.

import { formatAge } from '../../../service/core/common/duration.js';
import { cutAt, plainLine } from '../../../service/core/text/clean.js';
import { bytesShort, meter } from '../../../sidebar/model/hosts.js';
import type { TodoDisplay } from './todos.js';

export const WIDGET_KEY = 'dogsled';
/** Rows shown per group when expanded; the rest is counted. */
const ROWS_PER_GROUP = 6;

interface HostFacts {
  label?: unknown;
  reachable?: unknown;
  probe?: {
    cores?: unknown;
    busy?: unknown;
    memory?: { total_bytes?: unknown; free_bytes?: unknown };
    disk?: { free_bytes?: unknown };
  } | null;
  headroom?: { eligible?: unknown } | null;
}

export interface BoardRowFacts {
  kind?: unknown;
  id?: unknown;
  pane?: unknown;
  item?: unknown;
  job?: unknown;
  ticket?: unknown;
  title?: unknown;
  state?: unknown;
  reason?: unknown;
  place?: unknown;
  age_ms?: unknown;
}

interface BoardFacts {
  groups?: Array<{ id?: unknown; title?: unknown; rows?: unknown }>;
}

export interface WidgetFacts {
  /** Why dogsled shows nothing (no Herdr pane, no binary…); hosts and work are then left out. */
  unavailable: string | undefined;
  hosts: unknown;
  board: unknown;
  todos: TodoDisplay | undefined;
}

export const VIEWS = ['work', 'todos'] as const;
export type ViewName = (typeof VIEWS)[number];

/** What the keys change (widget-keys.ts): collapsed or not, the view, the selection, the folds. */
export interface WidgetView {
  expanded: boolean;
  view: ViewName;
  /** Index into pickRows(); clamped when the board changes under it. */
  selected: number;
  /** The DONE group (completed job history) starts collapsed. */
  doneOpen: boolean;
  /** Inline details of the selected row (Alt+I), already escape-free lines. */
  details: string[] | undefined;
}

export function initialView(): WidgetView {
  return { expanded: false, view: 'work', selected: 0, doneOpen: false, details: undefined };
}

/** A row the selection can stand on: a board row, or the fold of the DONE group. */
export interface PickRow {
  kind: 'agent' | 'job' | 'ticket' | 'fold';
  group: string;
  row: BoardRowFacts;
}

const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** `local  1.2/8 busy  mem ███░░░░░ 9.8G free  disk 120G`: one line per host. */
export function hostLine(host: HostFacts): string {
  const label = cutAt(plainLine(typeof host.label === 'string' ? host.label : '?'), 24);
  if (host.reachable === false || !host.probe) return `${label}  ? no reply`;
  const cores = num(host.probe.cores) ?? 0;
  const busy = (num(host.probe.busy) ?? 0) * cores;
  const total = num(host.probe.memory?.total_bytes) ?? 0;
  const free = num(host.probe.memory?.free_bytes) ?? 0;
  const disk = num(host.probe.disk?.free_bytes);
  const used = total > 0 ? 1 - free / total : 0;
  const mark = host.headroom?.eligible === false ? ' ▲' : '';
  const diskText = disk === undefined ? '' : `  disk ${bytesShort(disk)}`;
  return `${label}  ${busy.toFixed(1)}/${cores} busy  mem ${meter(used)} ${bytesShort(free)} free${diskText}${mark}`;
}

function hostsOf(status: unknown): HostFacts[] {
  const hosts = (status as { hosts?: unknown } | undefined)?.hosts;
  return Array.isArray(hosts) ? (hosts as HostFacts[]) : [];
}

function groupsOf(board: unknown): Array<{ id: string; title: string; rows: BoardRowFacts[] }> {
  const groups = (board as BoardFacts | undefined)?.groups;
  if (!Array.isArray(groups)) return [];
  return groups.map((group) => ({
    id: typeof group.id === 'string' ? group.id : '?',
    title: plainLine(typeof group.title === 'string' ? group.title : '?'),
    rows: Array.isArray(group.rows) ? (group.rows as BoardRowFacts[]) : [],
  }));
}

const ROW_KINDS = new Set(['agent', 'job', 'ticket']);

/** The rows Alt+J/K walk, top to bottom: every open group's rows, then DONE's fold (and rows, open). */
export function pickRows(board: unknown, doneOpen: boolean): PickRow[] {
  const picks: PickRow[] = [];
  for (const group of groupsOf(board)) {
    if (group.rows.length === 0) continue;
    if (group.id === 'done') picks.push({ kind: 'fold', group: group.id, row: {} });
    if (group.id === 'done' && !doneOpen) continue;
    for (const row of group.rows) {
      const kind = typeof row.kind === 'string' && ROW_KINDS.has(row.kind) ? row.kind : undefined;
      if (kind !== undefined) picks.push({ kind: kind as PickRow['kind'], group: group.id, row });
    }
  }
  return picks;
}

function rowLine(row: BoardRowFacts, selected = false): string {
  const state = plainLine(typeof row.state === 'string' ? row.state : '');
  const title = cutAt(plainLine(typeof row.title === 'string' ? row.title : ''), 120);
  const age = num(row.age_ms);
  return `  ${selected ? '›' : ' '} ${state.padEnd(9)} ${title}${age === undefined ? '' : `  ${formatAge(age)}`}`;
}

export const KEYS_HINT =
  'Alt+J/K select · Alt+] view · Alt+I details · Alt+S stop · Alt+C cancel · Alt+M message';

export function widgetLines(facts: WidgetFacts, view: WidgetView): string[] {
  const lines: string[] = [];
  if (facts.unavailable !== undefined) lines.push(`dogsled unavailable: ${facts.unavailable}`);
  else {
    const hosts = hostsOf(facts.hosts);
    lines.push(...(hosts.length === 0 ? ['dogsled: no host snapshot yet'] : hosts.map(hostLine)));
  }
  const current = facts.todos?.current;
  if (current) lines.push(`▸ ${current}`);
  if (view.expanded && view.view === 'todos') return [...lines, ...todoLines(facts.todos)];
  if (facts.unavailable !== undefined) return lines;
  const groups = groupsOf(facts.board).filter((group) => group.id !== 'done');
  const busy = groups.filter((group) => group.rows.length > 0);
  if (!view.expanded) {
    lines.push(
      busy.length === 0 ? 'work: nothing open' : busy.map((g) => `${g.title} ${g.rows.length}`).join(' · '),
    );
    return lines;
  }
  return [...lines, ...workLines(facts.board, view), KEYS_HINT];
}

/** The Work view: each group's rows, the selected one marked, its details under it, DONE folded. */
function workLines(board: unknown, view: WidgetView): string[] {
  const picks = pickRows(board, view.doneOpen);
  const selected = picks[Math.min(view.selected, picks.length - 1)];
  const lines: string[] = [];
  const push = (line: string, pick: PickRow | undefined) => {
    lines.push(line);
    if (pick !== undefined && pick === selected && view.details !== undefined)
      lines.push(...view.details.map((detail) => `      ${detail}`));
  };
  for (const group of groupsOf(board)) {
    if (group.rows.length === 0) continue;
    const pickOf = (row: BoardRowFacts) => picks.find((pick) => pick.row === row);
    if (group.id === 'done') {
      const fold = picks.find((pick) => pick.kind === 'fold');
      const mark = fold !== undefined && fold === selected ? '›' : ' ';
      const state = view.doneOpen ? '▾' : `▸ ${group.rows.length} (Alt+I opens)`;
      push(`${mark} ${group.title} ${state}`, fold);
      if (!view.doneOpen) continue;
    } else lines.push(`  ${group.title}`);
    for (const row of group.rows) {
      const pick = pickOf(row);
      push(rowLine(row, pick !== undefined && pick === selected), pick);
    }
  }
  return lines.length === 0 ? ['work: nothing open'] : lines;
}

/** The owner's open groups and their rows as plain lines (the /dogsled Status tab), DONE left out. */
export function boardLines(board: unknown): string[] {
  const lines: string[] = [];
  for (const group of groupsOf(board)) {
    if (group.id === 'done' || group.rows.length === 0) continue;
    lines.push(group.title, ...group.rows.map((row) => rowLine(row)));
  }
  return lines.length === 0 ? ['work: nothing open'] : lines;
}

/** The Todos view: pi-todo's progress, NOW, NEXT, and one fold for done and dropped. */
function todoLines(todos: TodoDisplay | undefined): string[] {
  if (todos === undefined) return ['todos: no compatible pi-todo (protocol 3) has shown any'];
  const lines: string[] = [];
  const folded: string[] = [];
  for (const section of todos.sections) {
    if (section.kind === 'progress') {
      lines.push(`  progress ${section.done ?? 0}/${section.total ?? 0}`);
      continue;
    }
    const count = section.lines?.length ?? section.total ?? 0;
    if (section.kind === 'done' || section.kind === 'dropped') {
      if (count > 0) folded.push(`${section.kind} ${count}`);
      continue;
    }
    if (!section.lines?.length) continue;
    lines.push(`  ${(section.title ?? section.kind).toUpperCase()}`);
    lines.push(...section.lines.slice(0, ROWS_PER_GROUP).map((line) => `    ${line}`));
    if (section.lines.length > ROWS_PER_GROUP)
      lines.push(`    … ${section.lines.length - ROWS_PER_GROUP} more`);
  }
  if (folded.length > 0) lines.push(`  ▸ ${folded.join(' · ')}`);
  return lines.length === 0 ? ['todos: nothing to do'] : lines;
}
