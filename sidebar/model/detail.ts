// The host detail view (⏎ on a host), over the whole screen: whether the host takes work and why (the
// headroom reasons `status` lists), what it measures, CPU busy and memory used over the last hour or
// day (from samples.jsonl, two line charts the app draws with blessed-contrib, each titled with its
// numbers so it reads without colour), then its reservations, agents and jobs. Pure: the samples
// come in as points, the charts go out as series; a pane too short for charts gets their numbers as
// text, so nothing is hidden, only smaller.

import type { HistoryPoint } from '../../service/actions/samples-history.js';
import { commandTitle } from '../../service/core/board/board-rule.js';
import { formatAge } from '../../service/core/common/duration.js';
import { formatBytes, formatCores } from '../../service/core/common/units.js';
import { factsLine } from '../../service/core/fleet/facts-line.js';
import { NOT_ELIGIBLE, UNAVAILABLE } from '../../service/core/placement/host-marks.js';
import { clipCells, displayText, fitCells, middleCells, wrapWords } from './cells.js';
import type { DetailView, HistoryWindow, Line, Role, SidebarHost } from './types.js';

export type { HistoryPoint };

export interface ChartView {
  /** Rows of the screen (inside the frame) the chart takes, its title lines included. */
  top: number;
  height: number;
  /** Its title and numbers, wrapped whole. */
  title: string[];
  role: Role;
  /** Percents (0-100) oldest first, one per bucket that had samples, and their labels. */
  x: string[];
  y: number[];
}

export interface DetailFrame {
  title: string;
  width: number;
  height: number;
  /** Text above the charts, never scrolled: the verdict and its reasons. */
  head: Line[];
  charts: ChartView[];
  /** Text below the charts, scrolled: the lists and the keys. */
  body: Line[];
  bodyTop: number;
  bodyHeight: number;
  scroll: number;
}

export const WINDOW_MS: Record<HistoryWindow, number> = { hour: 3_600_000, day: 86_400_000 };
const WINDOW_NAME: Record<HistoryWindow, string> = { hour: 'last hour', day: 'last day' };
/** Buckets a window is averaged into: a minute each over the hour, a quarter hour over the day. */
const BUCKETS: Record<HistoryWindow, number> = { hour: 60, day: 96 };
/** A chart under this many rows (its title included) says nothing: its numbers are shown as text. */
const CHART_MIN = 6;
const CHART_MAX = 10;
/** Rows kept for the lists under the charts. */
const BODY_MIN = 4;
const FRAME = 2;

/** Averages of each bucket of `window` ending at `now` that had a sample, as whole percents. */
export function historySeries(
  points: readonly HistoryPoint[],
  pick: (p: HistoryPoint) => number | null,
  window: HistoryWindow,
  now: number,
): { x: string[]; y: number[]; avg: number | null; max: number | null; covered_ms: number } {
  const span = WINDOW_MS[window];
  const buckets = BUCKETS[window];
  const step = span / buckets;
  const start = now - span;
  const sums = new Array<number>(buckets).fill(0);
  const counts = new Array<number>(buckets).fill(0);
  let total = 0;
  let count = 0;
  let max: number | null = null;
  let oldest: number | null = null;
  for (const point of points) {
    const value = pick(point);
    if (value === null || !Number.isFinite(value) || point.ts_ms < start || point.ts_ms > now) continue;
    const clamped = Math.min(1, Math.max(0, value));
    const index = Math.min(buckets - 1, Math.floor((point.ts_ms - start) / step));
    sums[index] = (sums[index] as number) + clamped;
    counts[index] = (counts[index] as number) + 1;
    total += clamped;
    count += 1;
    max = max === null ? clamped : Math.max(max, clamped);
    oldest = oldest === null ? point.ts_ms : Math.min(oldest, point.ts_ms);
  }
  const x: string[] = [];
  const y: number[] = [];
  for (let i = 0; i < buckets; i++) {
    if (counts[i] === 0) continue;
    const ago = span - (i + 1) * step;
    x.push(
      ago <= 0
        ? 'now'
        : window === 'hour'
          ? `-${Math.round(ago / 60_000)}m`
          : `-${Math.round(ago / 3_600_000)}h`,
    );
    y.push(Math.round((100 * (sums[i] as number)) / (counts[i] as number)));
  }
  return {
    x,
    y,
    avg: count === 0 ? null : Math.round((100 * total) / count),
    max: max === null ? null : Math.round(100 * max),
    covered_ms: oldest === null ? 0 : now - oldest,
  };
}

function text(value: string, width: number, fg: Role, bold = false): Line {
  return { segments: [{ text: fitCells(value, width), fg, bold }] };
}

/** `value` wrapped whole, its first line after `first`, the rest after `rest`. */
function wrapped(value: string, width: number, fg: Role, first = '', rest = first): Line[] {
  return wrapWords(value, Math.max(1, width - Math.max(first.length, rest.length))).map((chunk, i) =>
    text(`${i === 0 ? first : rest}${chunk}`, width, fg),
  );
}

/** What the host is and whether it takes work: never scrolled away. */
function headLines(host: SidebarHost, width: number): Line[] {
  const lines: Line[] = [];
  const probe = host.probe;
  const age = host.age_ms === null ? 'no snapshot' : `sampled ${formatAge(host.age_ms)} ago`;
  if (!host.reachable) {
    const why = host.unreachable ? `unreachable: ${displayText(host.unreachable)}` : 'not read yet';
    lines.push(...wrapped(`${UNAVAILABLE} ${why} · ${age}`, width, 'red'));
  } else {
    lines.push(
      ...wrapped(`service ${host.service} · ${age}`, width, host.service === 'up' ? 'subtext0' : 'red'),
    );
  }
  const free = host.free_cores === null ? '?' : formatCores(host.free_cores);
  if (host.eligible) lines.push(...wrapped(`eligible · ${free} free cores`, width, 'green'));
  else {
    lines.push(...wrapped(`${NOT_ELIGIBLE} not eligible · ${free} free cores`, width, 'peach'));
    for (const reason of host.reason) lines.push(...wrapped(displayText(reason), width, 'peach', '- ', '  '));
  }
  if (probe) {
    const busy =
      probe.busy === null
        ? `cpu no sample yet of ${probe.cores} cores · load ${probe.load1.toFixed(2)}`
        : `cpu ${formatCores(probe.busy * probe.cores)} of ${probe.cores} cores busy · load ${probe.load1.toFixed(2)}`;
    lines.push(...wrapped(busy, width, 'text', '', '  '));
    const memory = `memory ${formatBytes(probe.memory.free_bytes)} free of ${formatBytes(probe.memory.total_bytes)}`;
    lines.push(...wrapped(memory, width, 'text', '', '  '));
    const share =
      probe.disk.total_bytes > 0 ? Math.round((100 * probe.disk.free_bytes) / probe.disk.total_bytes) : 0;
    const disk = `disk ${formatBytes(probe.disk.free_bytes)} free (${share}%)`;
    lines.push(...wrapped(disk, width, 'text', '', '  '));
  }
  // What the host is (OS, CPU model, memory, GPUs), as `status` shows it under each host.
  if (host.facts)
    lines.push(...wrapped(`system ${displayText(factsLine(host.facts))}`, width, 'subtext0', '', '  '));
  return lines;
}

/** Reservations, agents and jobs, then the keys. */
function bodyLines(host: SidebarHost, width: number, now: number, window: HistoryWindow): Line[] {
  const lines: Line[] = [];
  const section = (title: string, count: number) =>
    lines.push(text(`${title} ${count}`, width, 'accent', true));
  section('reservations', host.reserved.length);
  for (const r of host.reserved) {
    const owner = r.owner === null ? '' : ` · ${displayText(r.owner)}`;
    const left = formatAge(Math.max(0, r.expires_ms - now));
    lines.push(...wrapped(`${displayText(r.id)} · ${left} left${owner}`, width, 'text', '  ', '    '));
  }
  section('agents', host.agents.length);
  for (const a of host.agents) {
    const head = `${displayText(a.state)} · ${displayText(a.pane)} ${displayText(a.agent)}`;
    const name = [a.name, a.model]
      .filter((p): p is string => Boolean(p))
      .map(displayText)
      .join(' · ');
    lines.push(...wrapped(head, width, 'text', '  ', '    '));
    if (name) lines.push(text(`    ${middleCells(name, width - 4)}`, width, 'subtext0'));
  }
  const running = host.jobs.filter((j) => j.ended_ms === null);
  const ended = host.jobs.filter((j) => j.ended_ms !== null);
  section('jobs', host.jobs.length);
  for (const job of [...running, ...ended]) {
    const state =
      job.ended_ms === null
        ? job.started_ms === null
          ? 'starting'
          : `running ${formatAge(Math.max(0, now - job.started_ms))}`
        : job.reason !== null && job.reason !== 'stopped'
          ? displayText(job.reason)
          : job.exit_code !== null
            ? `exit ${job.exit_code}`
            : job.signal !== null
              ? displayText(job.signal)
              : 'stopped';
    lines.push(...wrapped(`${state} · ${displayText(job.id)}`, width, 'text', '  ', '    '));
    lines.push(text(`    ${middleCells(commandTitle(job.command), width - 4)}`, width, 'subtext0'));
  }
  lines.push(text('', width, 'text'));
  const other = window === 'hour' ? 'last day' : 'last hour';
  lines.push(...wrapped(`w: ${other} · ↑↓ scroll · esc: back`, width, 'overlay1'));
  return lines;
}

/** `cpu busy · last hour · avg 23% · max 80%` (or why there is nothing to draw). */
function chartTitle(
  what: string,
  series: ReturnType<typeof historySeries>,
  window: HistoryWindow,
  historyNote: string | null,
): string {
  if (historyNote) return `${what} · ${WINDOW_NAME[window]}: ${historyNote}`;
  if (series.avg === null) return `${what} · ${WINDOW_NAME[window]}: no samples`;
  const partial =
    series.covered_ms < WINDOW_MS[window] * 0.9
      ? ` (samples of the last ${formatAge(series.covered_ms)})`
      : '';
  return `${what} · ${WINDOW_NAME[window]} · avg ${series.avg}% · max ${series.max}%${partial}`;
}

/**
 * The view of `detail.host` at `now`, `width` × `height` cells (frame included). `history` is its
 * samples (null: not kept here, a peer's samples stay on that host; undefined: still being read).
 */
export function buildDetail(
  host: SidebarHost,
  detail: DetailView,
  history: readonly HistoryPoint[] | null | undefined,
  now: number,
  width: number,
  height: number,
): DetailFrame {
  const inner = Math.max(1, width - FRAME);
  const rows = Math.max(1, height - FRAME);
  const facts = headLines(host, inner);
  const note =
    history === null
      ? `kept on ${displayText(host.label)}, not read here`
      : history === undefined
        ? 'reading samples.jsonl'
        : null;
  const cpu = historySeries(history ?? [], (p) => p.busy, detail.window, now);
  const mem = historySeries(history ?? [], (p) => p.memory_used, detail.window, now);
  const titles = [
    { title: chartTitle('cpu busy', cpu, detail.window, note), series: cpu, role: 'teal' as Role },
    { title: chartTitle('memory used', mem, detail.window, note), series: mem, role: 'mauve' as Role },
  ];
  const room = rows - facts.length - BODY_MIN;
  const chartRows = Math.min(CHART_MAX, Math.floor(room / 2));
  const drawn = chartRows >= CHART_MIN && history !== null && history !== undefined;
  // Without charts everything scrolls together, so a short pane still reaches every line.
  const head = drawn ? facts : [];
  const charts: ChartView[] = [];
  let top = head.length;
  const textual: Line[] = [];
  for (const chart of titles) {
    if (drawn && chart.series.y.length >= 2) {
      charts.push({
        top,
        height: chartRows,
        title: wrapWords(chart.title, inner),
        role: chart.role,
        x: chart.series.x,
        y: chart.series.y,
      });
      top += chartRows;
    } else textual.push(...wrapped(chart.title, inner, chart.role, '', '  '));
  }
  if (!drawn && history !== null && history !== undefined)
    textual.push(...wrapped('(charts need a taller pane)', inner, 'overlay0'));
  const body = [...(drawn ? [] : facts), ...textual, ...bodyLines(host, inner, now, detail.window)];
  const bodyHeight = Math.max(1, rows - top);
  const scroll = Math.min(detail.scroll, Math.max(0, body.length - bodyHeight));
  return {
    title: clipCells(` ${displayText(host.label)} `, Math.max(1, width - 4)),
    width,
    height,
    head,
    charts,
    body: body.slice(scroll, scroll + bodyHeight),
    bodyTop: top,
    bodyHeight,
    scroll,
  };
}
