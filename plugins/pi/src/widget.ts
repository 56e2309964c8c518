// The widget Pi draws above the editor when it is not in Herdr (spec, "Pi"): host meters, the
// current task, and the owner's work groups; collapsed to a few lines, expanded in place by /work
// or Alt+W. Pure: it turns what `status --json`, `board --json` and pi-todo gave into lines; the
// refresher in extension.ts reads them every ten seconds, only inside a Herdr pane.

import { formatAge } from '../../../service/core/duration.js';
import { flatText } from '../../../service/core/inbox-text.js';
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

interface BoardRowFacts {
  title?: unknown;
  state?: unknown;
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

const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** `local  1.2/8 busy  mem ███░░░░░ 9.8G free  disk 120G`: one line per host. */
export function hostLine(host: HostFacts): string {
  const label = flatText(typeof host.label === 'string' ? host.label : '?').slice(0, 24);
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

function groupsOf(board: unknown): Array<{ title: string; rows: BoardRowFacts[] }> {
  const groups = (board as BoardFacts | undefined)?.groups;
  if (!Array.isArray(groups)) return [];
  return groups
    .filter((group) => group.id !== 'done')
    .map((group) => ({
      title: flatText(typeof group.title === 'string' ? group.title : '?'),
      rows: Array.isArray(group.rows) ? (group.rows as BoardRowFacts[]) : [],
    }));
}

function rowLine(row: BoardRowFacts): string {
  const state = flatText(typeof row.state === 'string' ? row.state : '');
  const title = flatText(typeof row.title === 'string' ? row.title : '').slice(0, 120);
  const age = num(row.age_ms);
  return `    ${state.padEnd(9)} ${title}${age === undefined ? '' : `  ${formatAge(age)}`}`;
}

export function widgetLines(facts: WidgetFacts, expanded: boolean): string[] {
  const lines: string[] = [];
  if (facts.unavailable !== undefined) lines.push(`dogsled unavailable: ${facts.unavailable}`);
  else {
    const hosts = hostsOf(facts.hosts);
    lines.push(...(hosts.length === 0 ? ['dogsled: no host snapshot yet'] : hosts.map(hostLine)));
  }
  const current = facts.todos?.current;
  if (current) lines.push(`▸ ${current}`);
  if (facts.unavailable !== undefined) return lines;
  const groups = groupsOf(facts.board);
  const busy = groups.filter((group) => group.rows.length > 0);
  lines.push(
    busy.length === 0 ? 'work: nothing open' : busy.map((g) => `${g.title} ${g.rows.length}`).join(' · '),
  );
  if (!expanded) return lines;
  for (const group of busy) {
    lines.push(`  ${group.title}`);
    lines.push(...group.rows.slice(0, ROWS_PER_GROUP).map(rowLine));
    if (group.rows.length > ROWS_PER_GROUP) lines.push(`    … ${group.rows.length - ROWS_PER_GROUP} more`);
  }
  for (const section of facts.todos?.sections ?? []) {
    if (section.kind === 'done' || section.kind === 'dropped' || !section.lines?.length) continue;
    lines.push(`  ${(section.title ?? section.kind).toUpperCase()}`);
    lines.push(...section.lines.slice(0, ROWS_PER_GROUP).map((line) => `    ${line}`));
  }
  return lines;
}
