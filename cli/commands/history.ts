// `dogsled history [--json] [--since D] [--owner PANE] [--host H] [--search TEXT] [--stats]`: ended
// children and jobs (service/actions/history.ts), one line each, or their statistics. --json prints
// {entries} or the stats document.

import {
  type HistoryEntry,
  type HistoryStats,
  historyReport,
  historyStatsReport,
} from '../../service/actions/history.js';
import { formatAge } from '../../service/core/common/duration.js';
import { receiptText, tokensText, usdText } from '../../service/core/receipts/receipt.js';
import { clip, plainLine } from '../../service/core/text/clean.js';
import type { CliContext } from '../context.js';

export interface HistoryFlags {
  json?: boolean;
  since?: string;
  owner?: string;
  host?: string;
  search?: string;
  stats?: boolean;
}

export async function historyCommand(flags: HistoryFlags, ctx: CliContext): Promise<number> {
  const query = { since: flags.since, owner: flags.owner, host: flags.host, search: flags.search };
  if (flags.stats) {
    const stats = await historyStatsReport(ctx, query);
    ctx.out(flags.json ? `${JSON.stringify(stats)}\n` : `${renderStats(stats).join('\n')}\n`);
    return 0;
  }
  const report = await historyReport(ctx, query);
  if (flags.json) ctx.out(`${JSON.stringify({ entries: report.entries })}\n`);
  else ctx.out(`${renderEntries(report.entries).join('\n')}\n`);
  return 0;
}

function renderEntries(entries: readonly HistoryEntry[]): string[] {
  if (entries.length === 0) return ['no ended children or jobs in history'];
  return entries.map((entry) => {
    const day = new Date(entry.ended_ms).toISOString().slice(0, 16).replace('T', ' ');
    const cost = entry.kind === 'agent' ? `  ${receiptText(entry.receipt)}` : '';
    const head = `${day}  ${entry.outcome.padEnd(10)} ${formatAge(entry.duration_ms).padStart(5)}  ${entry.host}`;
    const what = entry.kind === 'agent' ? `${entry.name} (${entry.harness ?? 'agent'})` : entry.name;
    return `${head}  ${clip(plainLine(what), Math.max(10, 80 - head.length - cost.length - 2))}${cost}`;
  });
}

function renderStats(stats: HistoryStats): string[] {
  const lines: string[] = [];
  const row = (r: HistoryStats['total']) => {
    const known = r.unknown_usage > 0 ? ` (+${r.unknown_usage} unknown)` : '';
    const cost = r.unknown_cost > 0 ? `${usdText(r.usd)}+?` : usdText(r.usd);
    return `${clip(plainLine(r.key), 28).padEnd(28)} ${String(r.runs).padStart(5)} ${`${Math.round(r.success_rate * 100)}%`.padStart(5)} ${formatAge(r.duration_ms).padStart(7)} ${tokensText(r.tokens).padStart(7)} ${cost.padStart(9)}${known}`;
  };
  const header = `${''.padEnd(28)} ${'runs'.padStart(5)} ${'ok'.padStart(5)} ${'time'.padStart(7)} ${'tokens'.padStart(7)} ${'cost'.padStart(9)}`;
  lines.push(header, row(stats.total));
  for (const [title, rows] of [
    ['harness', stats.harness],
    ['model', stats.model],
    ['host', stats.host],
    ['day (UTC)', stats.day],
  ] as const) {
    if (rows.length === 0) continue;
    lines.push('', title.toUpperCase(), ...rows.map(row));
  }
  return lines;
}
