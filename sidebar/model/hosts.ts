// The Hosts panel: one two-line card per host (label, busy/cores, the `status --line` marker and the
// cells of a busy sparkline, which the app draws with blessed-contrib's renderer; then an eight-cell
// memory meter and free disk), or one line per host when folded.
// Memory and disk take the admission thresholds' colours: memory yellow within 10% of the reserve
// and red past it, disk yellow below twice disk_free_min_percent and red below it. An unreachable
// host shows `?` and `no reply <age>`, its last numbers dimmed.

import { formatAge } from '../../service/core/common/duration.js';
import { factsLine } from '../../service/core/fleet/facts-line.js';
import type { HostFacts } from '../../service/core/fleet/fleet-types.js';
import { glanceMarker, glanceNumbers } from '../../service/core/placement/host-marks.js';
import { cells, clipCells, displayText, fitCells } from './cells.js';
import type { Line, Role, Segment, SidebarHost, Thresholds } from './types.js';

export type Level = 'ok' | 'warn' | 'bad';
const LEVEL_ROLE: Record<Level, Role> = { ok: 'green', warn: 'yellow', bad: 'red' };
/** "Within 10% of the reserve": free memory below 110% of what admission needs turns yellow. */
export const MEMORY_WARN_MARGIN = 1.1;
const METER_CELLS = 8;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const SPARK_MAX = 12;
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

/** Padded to `width` cells: the label and numbers left, the tail (sparkline) right-aligned. */
function headLine(host: SidebarHost, width: number, folded: boolean, t: Thresholds): Segment[] {
  const facts = { ...host, probe: host.probe };
  const numbers = glanceNumbers(facts);
  const marker = glanceMarker(facts);
  const away = unavailableText(host);
  const dim = away !== null;
  const label = displayText(host.label);
  const parts: Segment[] = [{ text: clipCells(label, 12), fg: 'text', bold: true, dim }];
  if (numbers) parts.push({ text: ` ${numbers}`, fg: 'subtext0', dim });
  if (marker) parts.push({ text: ` ${marker}`, fg: marker === '?' ? 'overlay1' : 'peach', bold: true });
  if (away) parts.push({ text: ` ${away}`, fg: 'overlay0', dim });
  const used = parts.reduce((sum, s) => sum + cells(s.text), 0);
  if (folded) {
    const tail = foldedTail(host, t);
    return fill([...parts, ...tail.map((s) => ({ ...s, dim: s.dim || dim }))], used, width);
  }
  const room = Math.min(SPARK_MAX, width - used - 1);
  if (room >= 4 && host.busy_history.length > 0) {
    const spark = sparkPercents(host.busy_history, room);
    const gap = width - used - spark.length;
    return [...parts, { text: ' '.repeat(gap) }, { text: ' '.repeat(spark.length), spark, fg: 'teal', dim }];
  }
  return fill(parts, used, width);
}

/** Folded: `mem 64% disk 32%` after the numbers, coloured like the meters. */
function foldedTail(host: SidebarHost, t: Thresholds): Segment[] {
  const probe = host.probe;
  if (!probe) return [];
  const total = probe.memory.total_bytes;
  const usedPct = total > 0 ? Math.round((100 * (total - probe.memory.free_bytes)) / total) : 0;
  const memRole = LEVEL_ROLE[memoryLevel(probe.memory.free_bytes, host.reservations, t)];
  const diskRole = LEVEL_ROLE[diskLevel(diskPercent(host), t)];
  return [
    { text: ' mem ', fg: 'overlay1' },
    { text: `${Math.min(100, Math.max(0, usedPct))}%`, fg: memRole },
    { text: ' disk ', fg: 'overlay1' },
    { text: `${Math.round(diskPercent(host))}%`, fg: diskRole },
  ];
}

/** `mem ██████░░ 4.1G  disk 82G 32%`: memory used, free memory, free disk and its share. */
function meterLine(host: SidebarHost, width: number, t: Thresholds): Segment[] {
  const probe = host.probe;
  const dim = unavailableText(host) !== null;
  if (!probe) return [{ text: fitCells('  no measurements yet', width), fg: 'overlay0', dim: true }];
  const total = probe.memory.total_bytes;
  const used = total > 0 ? (total - probe.memory.free_bytes) / total : 0;
  const memRole = LEVEL_ROLE[memoryLevel(probe.memory.free_bytes, host.reservations, t)];
  const diskRole = LEVEL_ROLE[diskLevel(diskPercent(host), t)];
  const parts: Segment[] = [
    { text: '  mem ', fg: 'overlay1', dim },
    { text: meter(used), fg: memRole, dim },
    { text: ` ${bytesShort(Math.max(0, probe.memory.free_bytes))}`, fg: memRole, dim },
    { text: '  disk ', fg: 'overlay1', dim },
    { text: `${bytesShort(probe.disk.free_bytes)} ${Math.round(diskPercent(host))}%`, fg: diskRole, dim },
  ];
  return fill(
    parts,
    parts.reduce((sum, s) => sum + cells(s.text), 0),
    width,
  );
}

/** `  Debian GNU/Linux 12, Linux 6.1 · AMD EPYC…`: what the host is, dim, cut to the card. */
function factsSegments(facts: HostFacts, width: number): Segment[] {
  return [{ text: fitCells(`  ${displayText(factsLine(facts))}`, width), fg: 'overlay1', dim: true }];
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
): Line[] {
  if (hosts.length === 0) return [{ segments: [{ text: fitCells('no hosts', width), fg: 'overlay0' }] }];
  const lines: Line[] = [];
  for (const host of hosts) {
    lines.push({ segments: headLine(host, width, folded, t) });
    if (!folded) lines.push({ segments: meterLine(host, width, t) });
    if (!folded && host.facts) lines.push({ segments: factsSegments(host.facts, width) });
  }
  return lines;
}
