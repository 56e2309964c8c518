// history.jsonl: ended children and jobs, one JSON line each, for 30 days and a few MiB
// (core/history). Appends and rewrites happen under the file's lock (taken alone, lock order 7h),
// so two writers never lose a line; an append is one write of whole lines. Past its size bound or
// once its first line is older than the retention, the file is rewritten atomically with what
// keptLines keeps. A reader skips a line that is not an entry (a torn write, a hand edit) with one
// warning; anything but a regular file in its place is refused with one line, never opened blocking.

import { stat } from 'node:fs/promises';
import {
  HISTORY_MAX_BYTES,
  HISTORY_RETENTION_MS,
  type HistoryEntry,
  keptLines,
} from '../core/history/history-entry.js';
import { writeAtomic } from '../state/engine/atomic-write.js';
import { fsFailure } from '../state/engine/fs-errors.js';
import { testHoldInLock, withLock } from '../state/engine/lock.js';
import { openAppendRegular, openRegular, readRegular } from '../state/engine/regular-file.js';
import type { StateIO } from '../state/io.js';
import { STATE_FILE_MODE } from '../state/paths.js';
import { HistoryEntrySchema } from '../state/schemas/history-schemas.js';

export interface HistoryRead {
  entries: HistoryEntry[];
  /** Lines that were not entries: skipped. */
  skipped: number;
}

/** Every entry in file order; a missing file is an empty history. */
export async function readHistory(io: StateIO): Promise<HistoryRead> {
  const text = (await readRegular(io.paths.history)) ?? '';
  const entries: HistoryEntry[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const entry = parseEntry(line);
    if (entry === undefined) skipped++;
    else entries.push(entry);
  }
  if (skipped > 0)
    io.warn(
      `dogsled: warning: ${io.paths.history}: ${skipped} line${skipped === 1 ? '' : 's'} that are not history entries skipped`,
    );
  return { entries, skipped };
}

/**
 * readHistory for a reader that looks often (the page): the file is parsed again only when its
 * inode, size or modification time changed; a file that cannot be stat'ed is read as readHistory does.
 */
export class HistoryCache {
  private key = '';
  private last: HistoryRead = { entries: [], skipped: 0 };

  async read(io: StateIO): Promise<HistoryRead> {
    const info = await stat(io.paths.history).catch(() => undefined);
    const key = info === undefined ? '' : `${info.ino}:${info.size}:${info.mtimeMs}`;
    if (key !== '' && key === this.key) return this.last;
    this.last = await readHistory(io);
    this.key = key;
    return this.last;
  }
}

function parseEntry(line: string): HistoryEntry | undefined {
  try {
    const parsed = HistoryEntrySchema.safeParse(JSON.parse(line));
    return parsed.success ? (parsed.data as HistoryEntry) : undefined;
  } catch {
    return undefined;
  }
}

/** Appends `entries` under the file's lock, trimming the file first when it is due. */
export async function appendHistory(io: StateIO, entries: readonly HistoryEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const file = io.paths.history;
  const body = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
  await withLock(
    file,
    async (held) => {
      await testHoldInLock(file);
      const head = await readHead(file);
      const now = io.now();
      const due =
        head !== undefined &&
        (head.size + body.length > HISTORY_MAX_BYTES ||
          (head.firstEnded !== null && head.firstEnded < now - HISTORY_RETENTION_MS));
      await held.assertOwned();
      if (due) {
        await rewrite(io, body, now, () => held.assertOwned());
        return;
      }
      const handle = await openAppendRegular(file, STATE_FILE_MODE);
      try {
        // A torn last line (a crash mid-write) is fenced off, so this one still parses.
        await handle.appendFile(head !== undefined && !head.endsWithNewline ? `\n${body}` : body);
      } catch (error) {
        throw fsFailure('write', file, error);
      } finally {
        await handle.close().catch(() => undefined);
      }
    },
    { signal: io.signal },
  );
}

async function rewrite(io: StateIO, body: string, now: number, guard: () => Promise<void>): Promise<void> {
  const text = `${(await readRegular(io.paths.history)) ?? ''}\n${body}`;
  const lines: Array<{ id: string; ended_ms: number; text: string }> = [];
  for (const line of text.split('\n')) {
    const entry = line.trim() === '' ? undefined : parseEntry(line);
    if (entry !== undefined) lines.push({ id: entry.id, ended_ms: entry.ended_ms, text: line });
  }
  const kept = keptLines(lines, now);
  await writeAtomic(io.paths.history, kept.length > 0 ? `${kept.join('\n')}\n` : '', {
    mode: STATE_FILE_MODE,
    guard,
  });
}

interface Head {
  size: number;
  firstEnded: number | null;
  endsWithNewline: boolean;
}

const HEAD_BYTES = 8192;

async function readHead(file: string): Promise<Head | undefined> {
  const handle = await openRegular(file);
  if (handle === undefined) return undefined;
  try {
    const { size } = await handle.stat();
    if (size === 0) return { size, firstEnded: null, endsWithNewline: true };
    const buffer = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await handle.read(buffer, 0, buffer.length, 0);
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    const newline = buffer.indexOf(10);
    const first = newline === -1 ? undefined : parseEntry(buffer.subarray(0, newline).toString('utf8'));
    return { size, firstEnded: first?.ended_ms ?? null, endsWithNewline: last[0] === 10 };
  } catch (error) {
    throw fsFailure('read', file, error);
  } finally {
    await handle.close();
  }
}
