// The service's history pass: each item closed since the last pass becomes one history.jsonl line
// (core/history), with its job's outcome and its task's first line, and is then marked
// `history_ms` so it is written once. The append comes first: a crash between the two writes the
// entry again next pass, and readers keep one line per id. Locks: history.jsonl alone, released
// before items.json's.

import { join } from 'node:path';
import type { Item } from '../core/agents/item-types.js';
import { type HistoryEntry, historyEntry } from '../core/history/history-entry.js';
import { openRegular } from '../state/engine/regular-file.js';
import type { StateIO } from '../state/io.js';
import { readJobRecord } from '../state/records/job-records.js';
import { readItems, updateItems } from '../state/records/queue-items.js';
import { appendHistory } from './history-file.js';

/** The first this much of a task is enough for its first line. */
const TASK_HEAD_BYTES = 4096;
/** A pass writes at most this many (a first run after an upgrade catches up over a few passes). */
const PASS_MAX = 200;

/** Records the items closed and not yet in history; returns how many. */
export async function recordHistory(io: StateIO): Promise<number> {
  const ended = (await readItems(io)).items
    .filter(
      (item): item is Item & { closed_ms: number } => item.closed_ms !== null && item.history_ms == null,
    )
    .slice(0, PASS_MAX);
  if (ended.length === 0) return 0;
  const entries: HistoryEntry[] = [];
  for (const item of ended) {
    const job =
      item.job === null ? undefined : await readJobRecord(io.paths, item.job).catch(() => undefined);
    const task = item.launch ? await taskHead(join(io.paths.launches, `${item.launch}.task.md`)) : null;
    entries.push(historyEntry(item, job, task));
  }
  await appendHistory(io, entries);
  const ids = new Set(ended.map((item) => item.id));
  const now = io.now();
  await updateItems(io, (items) => {
    if (!items.items.some((item) => ids.has(item.id))) return { result: undefined };
    const list = items.items.map((item) => (ids.has(item.id) ? { ...item, history_ms: now } : item));
    return { result: undefined, next: { ...items, items: list } };
  });
  return entries.length;
}

/** The start of a task file, or null when it is gone or not a regular file. */
async function taskHead(path: string): Promise<string | null> {
  const handle = await openRegular(path).catch(() => undefined);
  if (handle === undefined) return null;
  try {
    const buffer = Buffer.alloc(TASK_HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, TASK_HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
