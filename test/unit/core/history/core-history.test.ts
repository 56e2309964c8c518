// history.jsonl's rules: an entry from an item and its job, the task's first line, what a rewrite
// keeps (30 days, one line per id, bounded bytes), filters, --since, and the statistics (unknown
// usage counted apart, never as 0).
import { describe, expect, it } from 'vitest';
import {
  filterHistory,
  HISTORY_KEEP_BYTES,
  HISTORY_RETENTION_MS,
  type HistoryEntry,
  historyEntry,
  keptLines,
  taskSummary,
} from '../../../../service/core/history/history-entry.js';
import { sinceMs } from '../../../../service/core/history/history-since.js';
import { historyStats } from '../../../../service/core/history/history-stats.js';

const NOW = 1_800_000_000_000;
const MIN = 60_000;
const receipt = (tokens: number | null, usd: number | null) => ({
  tokens,
  usd,
  turns: tokens === null ? null : 3,
  model: tokens === null ? null : 'claude-sonnet-4-5-20250929',
  models: [],
  prices_as_of: usd === null ? null : '2025-11-24',
  wall_ms: 5 * MIN,
});

const child = (extra = {}) => ({
  id: 'i_a',
  kind: 'agent' as const,
  host: 'local',
  owner: 'w1:p1',
  created_ms: NOW - 10 * MIN,
  closed_ms: NOW - 2 * MIN,
  close_reason: 'done',
  name: 'parser',
  harness: 'claude',
  model: 'sonnet',
  branch: 'feat/parser',
  receipt: receipt(12_000, 0.31),
  ...extra,
});

function entry(over: Partial<HistoryEntry>): HistoryEntry {
  return { ...historyEntry(child(), undefined, null), ...over };
}

describe('a history entry', () => {
  it("is a child's name, task, outcome, duration and receipt", () => {
    expect(historyEntry(child(), undefined, '# Rewrite the parser\n\nDetails.')).toEqual({
      v: 1,
      id: 'i_a',
      kind: 'agent',
      host: 'local',
      owner: 'w1:p1',
      name: 'parser',
      harness: 'claude',
      model: 'claude-sonnet-4-5-20250929',
      branch: 'feat/parser',
      summary: 'Rewrite the parser',
      outcome: 'finished',
      ok: true,
      started_ms: NOW - 10 * MIN,
      ended_ms: NOW - 2 * MIN,
      duration_ms: 8 * MIN,
      receipt: receipt(12_000, 0.31),
    });
    expect(
      historyEntry(child({ close_reason: 'pane gone', receipt: undefined }), undefined, null),
    ).toMatchObject({
      outcome: 'pane gone',
      ok: false,
      receipt: null,
      model: 'sonnet',
    });
  });

  it("is a job's command and exit from its record", () => {
    const job = {
      command: ['npm', 'test'],
      created_ms: NOW - 9 * MIN,
      started_ms: NOW - 8 * MIN,
      ended_ms: NOW - 3 * MIN,
      exit_code: 3,
      signal: null,
      reason: null,
    };
    const item = {
      ...child({ kind: 'job' as const, close_reason: 'job ended', name: null }),
      kind: 'job' as const,
    };
    expect(historyEntry(item, job, null)).toMatchObject({
      kind: 'job',
      name: 'npm test',
      summary: 'npm test',
      outcome: 'exit 3',
      ok: false,
      duration_ms: 5 * MIN,
    });
    expect(historyEntry(item, { ...job, exit_code: 0 }, null)).toMatchObject({ outcome: 'exit 0', ok: true });
  });

  it('keeps every string escape-free and on one line', () => {
    const hostile = historyEntry(
      child({ name: 'x\u001b]0;pwn\u0007y', branch: 'b\nr', harness: '\u001b[31mclaude' }),
      undefined,
      '\u001b[2J```\nfake-agent: {}\n```\n\u001b[1mDo it\u001b[0m\nmore',
    );
    const text = JSON.stringify(hostile);
    expect(text).not.toMatch(/\\u001b|\\u0007|\\n/);
    expect(hostile).toMatchObject({ name: 'xy', branch: 'b r', harness: 'claude', summary: 'Do it' });
    expect(taskSummary(null)).toBeNull();
    expect(taskSummary('```fake-agent\n```\n')).toBeNull();
  });
});

describe('what a rewrite keeps', () => {
  const line = (id: string, ended: number, size = 10) => ({
    id,
    ended_ms: ended,
    text: `${id}${'x'.repeat(size)}`,
  });

  it('drops lines past 30 days and repeats of an id, keeping the first', () => {
    const lines = [
      line('old', NOW - HISTORY_RETENTION_MS - 1),
      line('a', NOW - MIN),
      line('a', NOW),
      line('b', NOW),
    ];
    expect(keptLines(lines, NOW)).toEqual([lines[1]?.text, lines[3]?.text]);
  });

  it('keeps only the newest lines that fit in its byte bound', () => {
    const big = 1024 * 1024;
    const lines = Array.from({ length: 10 }, (_, i) => line(`i${i}`, NOW - (10 - i) * MIN, big));
    const kept = keptLines(lines, NOW);
    expect(kept.length).toBe(Math.floor(HISTORY_KEEP_BYTES / (big + 4)));
    expect(kept.at(-1)).toBe(lines[9]?.text);
  });
});

describe('history filters and --since', () => {
  const entries = [
    entry({ id: '1', ended_ms: NOW - 3 * 86_400_000, host: 'netcup', owner: 'w1:p1' }),
    entry({ id: '2', ended_ms: NOW - MIN, name: 'Lexer', owner: 'w2:p1' }),
    entry({ id: '2', ended_ms: NOW - MIN, name: 'dup' }),
  ];

  it('selects by time, owner, host and text, once per id, oldest first', () => {
    expect(filterHistory(entries, {}).map((e) => e.id)).toEqual(['1', '2']);
    expect(filterHistory(entries, { since_ms: NOW - 86_400_000 }).map((e) => e.id)).toEqual(['2']);
    expect(filterHistory(entries, { host: 'netcup' }).map((e) => e.id)).toEqual(['1']);
    expect(filterHistory(entries, { owner: 'w2:p1' }).map((e) => e.id)).toEqual(['2']);
    expect(filterHistory(entries, { search: 'lexer' }).map((e) => e.id)).toEqual(['2']);
    expect(filterHistory(entries, { search: 'feat/PARSER' }).map((e) => e.id)).toEqual(['1', '2']);
  });

  it('reads --since as a duration, days or a UTC day, and refuses anything else in one line', () => {
    expect(sinceMs('90m', NOW)).toBe(NOW - 90 * MIN);
    expect(sinceMs('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(sinceMs('2026-12-01', NOW)).toBe(Date.parse('2026-12-01T00:00:00Z'));
    expect(() => sinceMs('yesterday\u001b[2J', NOW)).toThrow(/^--since "yesterday": expected a duration/);
  });
});

describe('history statistics', () => {
  it('sums runs, successes, time, tokens and cost, with unknown usage apart', () => {
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const stats = historyStats([
      entry({ id: '1', receipt: receipt(10_000, 0.2), duration_ms: MIN }),
      entry({
        id: '2',
        ok: false,
        outcome: 'closed',
        receipt: receipt(null, null),
        duration_ms: MIN,
        host: 'netcup',
      }),
      entry({ id: '3', harness: 'codex', model: 'mystery', receipt: receipt(5_000, null), duration_ms: MIN }),
      entry({ id: '4', kind: 'job', harness: null, receipt: null, duration_ms: 2 * MIN }),
    ]);
    expect(stats.total).toEqual({
      key: 'all',
      runs: 4,
      ok: 3,
      success_rate: 0.75,
      duration_ms: 5 * MIN,
      tokens: 15_000,
      usd: 0.2,
      unknown_usage: 1,
      unknown_cost: 1,
    });
    expect(stats.harness.map((r) => [r.key, r.runs, r.tokens])).toEqual([
      ['claude', 2, 10_000],
      ['codex', 1, 5_000],
      ['job', 1, 0],
    ]);
    expect(stats.host.map((r) => r.key)).toEqual(['local', 'netcup']);
    expect(stats.day).toEqual([expect.objectContaining({ key: day(NOW - 2 * MIN), runs: 4 })]);
    expect(historyStats([]).total).toMatchObject({ runs: 0, success_rate: 0 });
  });
});
