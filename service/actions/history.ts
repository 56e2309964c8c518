// `dogsled history [--json] [--since D] [--owner PANE] [--host H] [--search TEXT] [--stats]`: this
// host's ended children and jobs from history.jsonl (service/history), filtered, oldest first, or
// their statistics. A read takes no lock: writers append whole lines or replace the file whole.

import { DogsledError } from '../core/common/errors.js';
import { filterHistory, type HistoryEntry, type HistoryFilter } from '../core/history/history-entry.js';
import { sinceMs } from '../core/history/history-since.js';
import { type HistoryStats, historyStats } from '../core/history/history-stats.js';
import { readHistory } from '../history/history-file.js';
import type { StateIO } from '../state/io.js';

export type { HistoryEntry, HistoryStats };

export interface HistoryQuery {
  since?: string | undefined;
  owner?: string | undefined;
  host?: string | undefined;
  search?: string | undefined;
}

export interface HistoryReport {
  entries: HistoryEntry[];
  /** Lines of the file that were not entries (skipped, with a warning). */
  skipped: number;
}

export async function historyReport(io: StateIO, query: HistoryQuery): Promise<HistoryReport> {
  const filter = historyFilter(query, io.now());
  const read = await readHistory(io);
  return { entries: filterHistory(read.entries, filter), skipped: read.skipped };
}

export async function historyStatsReport(io: StateIO, query: HistoryQuery): Promise<HistoryStats> {
  return historyStats((await historyReport(io, query)).entries);
}

function historyFilter(query: HistoryQuery, now: number): HistoryFilter {
  for (const [flag, value] of [
    ['--owner', query.owner],
    ['--host', query.host],
    ['--search', query.search],
  ] as const) {
    if (value !== undefined && value.trim() === '') throw new DogsledError(`${flag} is empty`);
  }
  return {
    since_ms: query.since === undefined ? undefined : sinceMs(query.since, now),
    owner: query.owner,
    host: query.host,
    search: query.search,
  };
}
