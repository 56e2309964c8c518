// The sidebar's detail view's read: this host's samples.jsonl for its charts, the last day of it,
// read once when the view opens and then only what was appended since (the service appends a line
// per interval and rewrites the file about once an hour when it trims, which a shorter file or a
// changed inode betrays). A file that is not a regular file, or any read error, is no history; a
// torn line is skipped.

import { openRegular } from '../state/engine/regular-file.js';

/** One line of samples.jsonl, reduced to what the charts draw (fractions 0-1, null: not measured). */
export interface HistoryPoint {
  ts_ms: number;
  busy: number | null;
  memory_used: number | null;
}

/** A day at a 1-second interval is ~30 MB: never read more than this much of the file's end. */
const MAX_READ_BYTES = 48 * 1024 * 1024;
/** What is kept, and the tail read at first: a day (and an hour of slack). */
const KEEP_MS = 25 * 3_600_000;
const FIRST_TAIL_BYTES = 4 * 1024 * 1024;

export class SamplesHistory {
  private points: HistoryPoint[] = [];
  private offset = 0;
  private ino = -1;
  /** The next read starts inside a line (a first read from the middle of the file). */
  private partial = false;

  constructor(private readonly file: string) {}

  /** The points of the last day, oldest first, after reading what is new. */
  async read(now: number): Promise<HistoryPoint[]> {
    try {
      const handle = await openRegular(this.file);
      if (handle === undefined) return this.reset();
      try {
        const info = await handle.stat();
        if (info.ino !== this.ino || info.size < this.offset) {
          this.points = [];
          this.offset = await this.startOffset(handle, info.size, now);
          this.partial = this.offset > 0;
          this.ino = info.ino;
        }
        if (info.size > this.offset) {
          const length = Math.min(info.size - this.offset, MAX_READ_BYTES);
          const from = info.size - length;
          const buffer = Buffer.alloc(length);
          await handle.read(buffer, 0, length, from);
          const text = buffer.toString('utf8');
          // Only whole lines: a line still being appended is read next time.
          const end = text.lastIndexOf('\n');
          if (end >= 0) {
            this.points.push(...parse(text.slice(0, end), this.partial || from > this.offset));
            this.offset = from + Buffer.byteLength(text.slice(0, end + 1));
            this.partial = false;
          }
        }
      } finally {
        await handle.close().catch(() => undefined);
      }
    } catch {
      return this.reset();
    }
    const since = now - KEEP_MS;
    if (this.points.length > 0 && (this.points[0] as HistoryPoint).ts_ms < since) {
      this.points = this.points.filter((p) => p.ts_ms >= since);
    }
    return this.points;
  }

  private reset(): HistoryPoint[] {
    this.points = [];
    this.offset = 0;
    this.ino = -1;
    this.partial = false;
    return [];
  }

  /**
   * Where a first read starts: the start of the line that begins the last day, found by reading
   * growing tails of the file (most of a week's file is older than a day and never read).
   */
  private async startOffset(
    handle: NonNullable<Awaited<ReturnType<typeof openRegular>>>,
    size: number,
    now: number,
  ): Promise<number> {
    let tail = FIRST_TAIL_BYTES;
    for (;;) {
      if (tail >= size) return 0;
      if (tail >= MAX_READ_BYTES) return size - MAX_READ_BYTES;
      const probe = Buffer.alloc(512);
      const { bytesRead } = await handle.read(probe, 0, probe.length, size - tail);
      const text = probe.subarray(0, bytesRead).toString('utf8');
      const nl = text.indexOf('\n');
      const first = nl >= 0 ? parse(text.slice(nl + 1).split('\n')[0] ?? '', false)[0] : undefined;
      if (first === undefined || first.ts_ms < now - KEEP_MS) return size - tail;
      tail *= 2;
    }
  }
}

/** samples.jsonl lines as points; `skipFirst` when the text starts in the middle of a line. */
export function parse(text: string, skipFirst: boolean): HistoryPoint[] {
  const lines = text.split('\n');
  if (skipFirst) lines.shift();
  const points: HistoryPoint[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    let sample: { ts_ms?: unknown; busy?: unknown; memory?: { total_bytes?: unknown; free_bytes?: unknown } };
    try {
      sample = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof sample?.ts_ms !== 'number' || !Number.isFinite(sample.ts_ms)) continue;
    const busy = typeof sample.busy === 'number' && Number.isFinite(sample.busy) ? sample.busy : null;
    const total = sample.memory?.total_bytes;
    const free = sample.memory?.free_bytes;
    const memory_used =
      typeof total === 'number' && typeof free === 'number' && total > 0 && Number.isFinite(free)
        ? (total - free) / total
        : null;
    points.push({ ts_ms: sample.ts_ms, busy, memory_used });
  }
  return points;
}
