// `history --stats`: runs, success rate, time, tokens and cost, per harness, model, host and day
// (UTC days). Unknown usage stays out of the sums and is counted apart, so a total is never
// mistaken for complete. Pure.

import type { HistoryEntry } from './history-entry.js';

export interface StatsRow {
  key: string;
  runs: number;
  ok: number;
  /** ok / runs, 0-1. */
  success_rate: number;
  duration_ms: number;
  /** Sums over the runs whose usage is known; `unknown_usage` runs are not in them. */
  tokens: number;
  usd: number;
  unknown_usage: number;
  /** Runs whose tokens are known but whose model the price table does not price. */
  unknown_cost: number;
}

export interface HistoryStats {
  total: StatsRow;
  harness: StatsRow[];
  model: StatsRow[];
  host: StatsRow[];
  day: StatsRow[];
}

export function historyStats(entries: readonly HistoryEntry[]): HistoryStats {
  const by = (keyOf: (entry: HistoryEntry) => string) => {
    const rows = new Map<string, StatsRow>();
    for (const entry of entries) {
      const key = keyOf(entry);
      const row = rows.get(key) ?? emptyRow(key);
      add(row, entry);
      rows.set(key, row);
    }
    return [...rows.values()].map(finish).sort((a, b) => b.runs - a.runs || a.key.localeCompare(b.key));
  };
  const total = emptyRow('all');
  for (const entry of entries) add(total, entry);
  return {
    total: finish(total),
    harness: by((e) => (e.kind === 'job' ? 'job' : (e.harness ?? 'unknown'))),
    model: by((e) => (e.kind === 'job' ? 'job' : (e.model ?? 'unknown'))),
    host: by((e) => e.host),
    day: by((e) => new Date(e.ended_ms).toISOString().slice(0, 10)).sort((a, b) =>
      a.key.localeCompare(b.key),
    ),
  };
}

function emptyRow(key: string): StatsRow {
  return {
    key,
    runs: 0,
    ok: 0,
    success_rate: 0,
    duration_ms: 0,
    tokens: 0,
    usd: 0,
    unknown_usage: 0,
    unknown_cost: 0,
  };
}

function add(row: StatsRow, entry: HistoryEntry): void {
  row.runs++;
  if (entry.ok) row.ok++;
  row.duration_ms += entry.duration_ms;
  // Jobs have no usage: they are neither in the sums nor unknown.
  if (entry.kind === 'job') return;
  const receipt = entry.receipt;
  if (receipt === null || receipt.tokens === null) {
    row.unknown_usage++;
    return;
  }
  row.tokens += receipt.tokens;
  if (receipt.usd === null) row.unknown_cost++;
  else row.usd += receipt.usd;
}

function finish(row: StatsRow): StatsRow {
  return {
    ...row,
    success_rate: row.runs === 0 ? 0 : row.ok / row.runs,
    usd: Math.round(row.usd * 10_000) / 10_000,
  };
}
