// history.jsonl's rules (one line per ended child or job): what an entry says, built from an item,
// its job record and its task's first line; which lines a rewrite keeps (30 days, bounded in size,
// the newest first kept); and what `history` shows (filters, then statistics: history-stats.ts).
// Pure. Every string in an entry came from an agent, a user or a file: made one escape-free line.

import { shellLine } from '../common/shell-quote.js';
import { endToken, type JobOutcome, succeeded } from '../jobs/job-status.js';
import type { Receipt } from '../receipts/receipt.js';
import { clip, plainLine } from '../text/clean.js';

export const HISTORY_RETENTION_MS = 30 * 86_400_000;
/** The file stays under this: a busy month of children is a few MiB. */
export const HISTORY_MAX_BYTES = 8 * 1024 * 1024;
/** A rewrite keeps this much of the newest, so the next trim is far off. */
export const HISTORY_KEEP_BYTES = 6 * 1024 * 1024;
const SUMMARY_MAX = 160;
const utf8 = new TextEncoder();

export type HistoryEntry = {
  v: 1;
  /** The item's id: an entry written twice (a crash before the item was marked) is read once. */
  id: string;
  kind: 'agent' | 'job';
  host: string;
  owner: string | null;
  /** A child's name; a job's command line. */
  name: string;
  harness: string | null;
  model: string | null;
  branch: string | null;
  /** What it was asked: the task's first line, or the job's command. */
  summary: string | null;
  /** `finished`, `closed`, `pane gone`; a job's `exit 0`, `exit 3`, `timeout`, `stopped`, ... */
  outcome: string;
  ok: boolean;
  started_ms: number;
  ended_ms: number;
  duration_ms: number;
  receipt: Receipt | null;
};

/** What an entry is built from: the item as items.json keeps it. */
export interface EndedItem {
  id: string;
  kind: 'agent' | 'job';
  host: string;
  owner: string | null;
  owner_pane?: string | null | undefined;
  created_ms: number;
  closed_ms: number | null;
  close_reason: string | null;
  command?: readonly string[] | undefined;
  name?: string | null | undefined;
  harness?: string | null | undefined;
  model?: string | null | undefined;
  branch?: string | null | undefined;
  receipt?: Receipt | null | undefined;
}

const line = (text: string | null | undefined, max = 120): string | null => {
  if (text === null || text === undefined) return null;
  const clean = clip(plainLine(text).trim(), max);
  return clean === '' ? null : clean;
};

/** The entry of a closed item; `job` is its job record when it has one, `task` its task text. */
export function historyEntry(
  item: EndedItem & { closed_ms: number },
  job: (JobOutcome & { command: readonly string[]; created_ms: number }) | undefined,
  task: string | null,
): HistoryEntry {
  const command = job?.command ?? item.command ?? [];
  const commandLine = clip(shellLine(command.map(plainLine)), SUMMARY_MAX);
  const started =
    item.kind === 'job' ? (job?.started_ms ?? job?.created_ms ?? item.created_ms) : item.created_ms;
  const ended = item.kind === 'job' ? (job?.ended_ms ?? item.closed_ms) : item.closed_ms;
  const outcome =
    item.kind === 'job'
      ? job === undefined || job.ended_ms === null
        ? (line(item.close_reason, 40) ?? 'ended')
        : (line(endToken(job), 40) ?? 'ended')
      : item.close_reason === 'done'
        ? 'finished'
        : (line(item.close_reason, 40) ?? 'closed');
  return {
    v: 1,
    id: item.id,
    kind: item.kind,
    host: line(item.host, 64) ?? 'local',
    owner: line(item.owner ?? item.owner_pane, 64),
    name: item.kind === 'job' ? commandLine || item.id : (line(item.name, 60) ?? item.id),
    harness: line(item.harness, 40),
    model: line(item.receipt?.model ?? item.model, 80),
    branch: line(item.branch, 120),
    summary: item.kind === 'job' ? commandLine || null : taskSummary(task),
    outcome,
    ok: item.kind === 'job' ? job !== undefined && succeeded(job) : item.close_reason === 'done',
    started_ms: started,
    ended_ms: ended,
    duration_ms: Math.max(0, ended - started),
    receipt: item.receipt ?? null,
  };
}

/** A task's first line of prose: not a heading mark, not inside a fence (a script), not a script line. */
export function taskSummary(task: string | null): string | null {
  if (task === null) return null;
  let fenced = false;
  for (const raw of task.split('\n')) {
    const text = plainLine(raw)
      .replace(/^#+\s*/, '')
      .trim();
    if (text.startsWith('```')) {
      fenced = !fenced;
      continue;
    }
    if (fenced || text === '' || text.startsWith('fake-agent:')) continue;
    return line(text, SUMMARY_MAX);
  }
  return null;
}

/**
 * The entries a rewrite keeps: ended within the retention, each id once (its first line), and, past
 * HISTORY_KEEP_BYTES of lines, only the newest that fit. `lines` are the serialized entries in file
 * order with their parsed end time.
 */
export function keptLines(
  lines: ReadonlyArray<{ id: string; ended_ms: number; text: string }>,
  now: number,
): string[] {
  const cutoff = now - HISTORY_RETENTION_MS;
  const seen = new Set<string>();
  const fresh = lines.filter((entry) => {
    if (entry.ended_ms < cutoff || seen.has(entry.id)) return false;
    seen.add(entry.id);
    return true;
  });
  let bytes = 0;
  let first = fresh.length;
  while (first > 0) {
    const size = utf8.encode(fresh[first - 1]?.text ?? '').length + 1;
    if (bytes + size > HISTORY_KEEP_BYTES) break;
    bytes += size;
    first--;
  }
  return fresh.slice(first).map((entry) => entry.text);
}

export interface HistoryFilter {
  since_ms?: number | undefined;
  owner?: string | undefined;
  host?: string | undefined;
  /** Case-insensitive, in the name, summary, branch, model, harness and outcome. */
  search?: string | undefined;
}

/** The entries a filter selects, oldest first, each id once. */
export function filterHistory(entries: readonly HistoryEntry[], filter: HistoryFilter): HistoryEntry[] {
  const needle = filter.search?.toLowerCase();
  const seen = new Set<string>();
  return entries
    .filter((entry) => {
      if (seen.has(entry.id)) return false;
      seen.add(entry.id);
      if (filter.since_ms !== undefined && entry.ended_ms < filter.since_ms) return false;
      if (filter.owner !== undefined && entry.owner !== filter.owner) return false;
      if (filter.host !== undefined && entry.host !== filter.host) return false;
      if (needle !== undefined) {
        const fields = [entry.name, entry.summary, entry.branch, entry.model, entry.harness, entry.outcome];
        if (!fields.some((field) => field?.toLowerCase().includes(needle))) return false;
      }
      return true;
    })
    .sort((a, b) => a.ended_ms - b.ended_ms);
}
