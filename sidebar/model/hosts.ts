// The Hosts panel: one card per host (label, busy/cores, the `status --line` marker and the cells of
// a busy sparkline, which the app draws with blessed-contrib's renderer; a memory meter with free
// memory and free disk; under a `▲`, why the host takes no work), or one line per host when folded.
// Memory and disk take the admission thresholds' colours and, so they read without colour, the word
// `low`: memory within 10% of the reserve (yellow) or past it (red), disk below twice
// disk_free_min_percent (yellow) or below it (red). An unreachable host shows `?` and `no reply
// <age>`, its last numbers dimmed. A card's lines carry its host id, which ⏎ opens in the detail view.

import { formatAge } from '../../service/core/common/duration.js';
import { glanceMarker, glanceNumbers, NOT_ELIGIBLE } from '../../service/core/placement/host-marks.js';
import { cells, clipCells, displayText, fitCells, middleCells, wrapWords } from './cells.js';
import { hostWhy } from './reasons.js';
import type { Line, Role, Segment, SidebarHost, Thresholds } from './types.js';

export type Level = 'ok' | 'warn' | 'bad';
const LEVEL_ROLE: Record<Level, Role> = { ok: 'green', warn: 'yellow', bad: 'red' };
/** "Within 10% of the reserve": free memory below 110% of what admission needs turns yellow. */
export const MEMORY_WARN_MARGIN = 1.1;
const METER_CELLS = 8;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const SPARK_MAX = 12;
/** A label longer than this is shortened in the middle, so the numbers and marker stay on the line. */
const LABEL_MAX = 14;
const GIB = 1024 ** 3;

/** Memory against the reserve admission needs for one more placement (headroom.ts). */
export function memoryLevel(freeBytes: number, reservations: number, t: Thresholds): Level {
  const needed = t.memory_reserve_bytes * (reservations + 1);
  if (freeBytes < needed) return 'bad';
  if (freeBytes < needed * MEMORY_WARN_MARGIN) return 'warn';
  return 'ok';
}

export function diskLevel(freePercent: number, t: Thresholds): Level {
  if (freePercent < t.disk_free_min_percent) return 'bad';
  if (freePercent < 2 * t.disk_free_min_percent) return 'warn';
  return 'ok';
}

/** Eight cells filled by the used fraction, to an eighth of a cell. */
export function meter(fraction: number, width = METER_CELLS): string {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const eighths = Math.round(clamped * width * 8);
  const full = Math.floor(eighths / 8);
  const part = EIGHTHS[eighths % 8] ?? '';
  const filled = '█'.repeat(full) + part;
  return filled + '░'.repeat(Math.max(0, width - full - (part ? 1 : 0)));
}

/**
 * The last `width` busy samples as whole percents (0-100; null where no sample existed), for the
 * app's sparkline renderer: integers because that renderer scales with 32-bit shifts.
 */
export function sparkPercents(history: ReadonlyArray<number | null>, width: number): Array<number | null> {
  if (width <= 0) return [];
  return history
    .slice(-width)
    .map((busy) =>
      busy === null || !Number.isFinite(busy) ? null : Math.round(100 * Math.min(1, Math.max(0, busy))),
    );
}

export function bytesShort(bytes: number): string {
  if (bytes >= 1024 * GIB) return `${(bytes / (1024 * GIB)).toFixed(1)}T`;
  if (bytes >= 10 * GIB) return `${Math.round(bytes / GIB)}G`;
  if (bytes >= GIB) return `${(bytes / GIB).toFixed(1)}G`;
  return `${Math.max(0, Math.round(bytes / 1024 ** 2))}M`;
}

function diskPercent(host: SidebarHost): number {
  const disk = host.probe?.disk;
  if (!disk || disk.total_bytes <= 0) return 0;
  return (100 * disk.free_bytes) / disk.total_bytes;
}

function unavailableText(host: SidebarHost): string | null {
  if (!host.reachable) return host.age_ms === null ? 'no reply' : `no reply ${formatAge(host.age_ms)}`;
  if (host.service === 'down') return 'service down';
  if (!host.probe) return 'no snapshot';
  return null;
}

/** The first line of a card: the label, numbers and marker left, the busy sparkline right-aligned. */
function headLine(host: SidebarHost, width: number, folded: boolean, t: Thresholds): Segment[] {
  const facts = { ...host, probe: host.probe };
  const numbers = glanceNumbers(facts);
  const marker = glanceMarker(facts);
  const away = unavailableText(host);
  const dim = away !== null;
  const label = displayText(host.label);
  const parts: Segment[] = [{ text: middleCells(label, LABEL_MAX), fg: 'text', bold: true, dim }];
  if (numbers) parts.push({ text: ` ${numbers}`, fg: 'subtext0', dim });
  if (marker) parts.push({ text: ` ${marker}`, fg: marker === '?' ? 'overlay1' : 'peach', bold: true });
  if (away) parts.push({ text: ` ${away}`, fg: 'overlay0', dim });
  const used = parts.reduce((sum, s) => sum + cells(s.text), 0);
  if (folded) {
    const line = [...parts, ...foldedTail(host, t).map((s) => ({ ...s, dim: s.dim || dim }))];
    return fill(
      line,
      line.reduce((sum, s) => sum + cells(s.text), 0),
      width,
    );
  }
  const room = Math.min(SPARK_MAX, width - used - 1);
  if (room >= 4 && host.busy_history.length > 0) {
    const spark = sparkPercents(host.busy_history, room);
    const gap = width - used - spark.length;
    return [...parts, { text: ' '.repeat(gap) }, { text: ' '.repeat(spark.length), spark, fg: 'teal', dim }];
  }
  return fill(parts, used, width);
}

/** A level in words too, so it reads without colour: near the threshold or past it is ` low`. */
function lowMark(level: Level, role: Role, dim: boolean): Segment[] {
  return level === 'ok' ? [] : [{ text: ' low', fg: role, bold: true, dim }];
}

/** Folded: ` free mem 48G disk 50%` after the numbers, free memory and free disk like the cards. */
function foldedTail(host: SidebarHost, t: Thresholds): Segment[] {
  const probe = host.probe;
  if (!probe) return [];
  const mem = memoryLevel(probe.memory.free_bytes, host.reservations, t);
  const disk = diskLevel(diskPercent(host), t);
  return [
    { text: ' free mem ', fg: 'overlay1' },
    { text: bytesShort(Math.max(0, probe.memory.free_bytes)), fg: LEVEL_ROLE[mem] },
    ...lowMark(mem, LEVEL_ROLE[mem], false),
    { text: ' disk ', fg: 'overlay1' },
    { text: `${Math.round(diskPercent(host))}%`, fg: LEVEL_ROLE[disk] },
    ...lowMark(disk, LEVEL_ROLE[disk], false),
  ];
}

/**
 * The second line: a memory meter (the used share), free memory and free disk, each said `free` so
 * neither reads as used; the widest of three forms that fits (an eight-cell meter, a four-cell one,
 * none).
 */
function meterLine(host: SidebarHost, width: number, t: Thresholds): Segment[] {
  const probe = host.probe;
  const dim = unavailableText(host) !== null;
  if (!probe) return [{ text: fitCells('  no measurements yet', width), fg: 'overlay0', dim: true }];
  const total = probe.memory.total_bytes;
  const used = total > 0 ? (total - probe.memory.free_bytes) / total : 0;
  const mem = memoryLevel(probe.memory.free_bytes, host.reservations, t);
  const disk = diskLevel(diskPercent(host), t);
  const memRole = LEVEL_ROLE[mem];
  const diskRole = LEVEL_ROLE[disk];
  const free = bytesShort(Math.max(0, probe.memory.free_bytes));
  const share = `${Math.round(diskPercent(host))}%`;
  const withMeter = (cellsWide: number): Segment[] => [
    { text: ' mem ', fg: 'overlay1', dim },
    { text: meter(used, cellsWide), fg: memRole, dim },
    { text: ` ${free} free`, fg: memRole, dim },
    ...lowMark(mem, memRole, dim),
    { text: ' · disk ', fg: 'overlay1', dim },
    { text: `${share} free`, fg: diskRole, dim },
    ...lowMark(disk, diskRole, dim),
  ];
  const bare: Segment[] = [
    { text: ' free mem ', fg: 'overlay1', dim },
    { text: free, fg: memRole, dim },
    ...lowMark(mem, memRole, dim),
    { text: ' disk ', fg: 'overlay1', dim },
    { text: share, fg: diskRole, dim },
    ...lowMark(disk, diskRole, dim),
  ];
  const width_ = (parts: Segment[]) => parts.reduce((sum, s) => sum + cells(s.text), 0);
  const chosen = [withMeter(METER_CELLS), withMeter(METER_CELLS / 2)].find((p) => width_(p) <= width) ?? bare;
  return fill(chosen, width_(chosen), width);
}

/** Under a `▲`: why the host takes no work, wrapped whole (the rest are in the detail view). */
function reasonLines(host: SidebarHost, width: number): Segment[][] {
  if (glanceMarker({ ...host, probe: host.probe }) !== NOT_ELIGIBLE) return [];
  const why = hostWhy(host);
  if (why === null) return [];
  const more = host.reason.length > 1 ? ` (+${host.reason.length - 1} more)` : '';
  return wrapWords(`${NOT_ELIGIBLE} ${why}${more}`, width - 1).map((chunk) =>
    fill([{ text: ` ${chunk}`, fg: 'peach' }], cells(chunk) + 1, width),
  );
}

/** Segments clipped or padded to exactly `width` cells. */
export function fill(parts: Segment[], used: number, width: number): Segment[] {
  if (used <= width) return used < width ? [...parts, { text: ' '.repeat(width - used) }] : parts;
  const out: Segment[] = [];
  let left = width;
  for (const part of parts) {
    if (left <= 0) break;
    const w = cells(part.text);
    if (w <= left) {
      out.push(part);
      left -= w;
    } else {
      const cut = clipCells(part.text, left);
      out.push({ ...part, text: cut });
      left -= cells(cut);
    }
  }
  if (left > 0) out.push({ text: ' '.repeat(left) });
  return out;
}

export function hostLines(
  hosts: readonly SidebarHost[],
  width: number,
  folded: boolean,
  t: Thresholds,
  selected: string | null = null,
): Line[] {
  if (hosts.length === 0) return [{ segments: [{ text: fitCells('no hosts', width), fg: 'overlay0' }] }];
  const inner = Math.max(1, width - 1);
  const lines: Line[] = [];
  for (const host of hosts) {
    const chosen = host.id === selected;
    const mark: Segment = chosen ? { text: '▌', fg: 'accent' } : { text: ' ' };
    const rows = [headLine(host, inner, folded, t)];
    if (!folded) rows.push(meterLine(host, inner, t), ...reasonLines(host, inner));
    for (const segments of rows) {
      const marked = [mark, ...segments];
      lines.push({
        segments: chosen ? marked.map((s) => (s.bg ? s : { ...s, bg: 'surface0' as Role })) : marked,
        host: host.id,
      });
    }
  }
  return lines;
}
