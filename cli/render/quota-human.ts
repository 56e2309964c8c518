// The human form of `dogsled quota`: where the snapshot came from and how old it is, then one line
// per window (pool and account named once per group), its use and when it resets. An error row
// reads `unknown` with its reason, never as available quota. Every provider string is shown as one
// escape-free line, whatever the snapshot holds.

import type { QuotaReport } from '../../service/actions/quota.js';
import { formatAge } from '../../service/core/common/duration.js';
import type { QuotaRow } from '../../service/core/quota/quota-rows.js';
import { clip, plainLine } from '../../service/core/text/clean.js';

const POOL_WIDTH = 10;
const ACCOUNT_WIDTH = 24;
const WINDOW_WIDTH = 18;

export function renderQuota(report: QuotaReport, width: number): string[] {
  const { snapshot } = report;
  if (report.age_ms === null) return ['no quota snapshot yet'];
  const source = plainLine(snapshot.source) || 'an unnamed collector';
  const stale = report.stale ? ' (stale: older than 15m)' : '';
  const lines = [clip(`quota from ${source}, fetched ${formatAge(report.age_ms)} ago${stale}`, width)];
  if (snapshot.pools.length === 0) lines.push('no accounts');
  let previous: QuotaRow | undefined;
  for (const row of snapshot.pools) {
    const samePool = previous?.pool === row.pool;
    const sameAccount = samePool && previous?.account === row.account;
    previous = row;
    const pool = samePool ? '' : plainLine(row.pool);
    const account = sameAccount ? '' : plainLine(row.account) || '-';
    const head = [
      clip(pool, POOL_WIDTH).padEnd(POOL_WIDTH),
      clip(account, ACCOUNT_WIDTH).padEnd(ACCOUNT_WIDTH),
      clip(plainLine(row.window), WINDOW_WIDTH).padEnd(WINDOW_WIDTH),
    ].join(' ');
    lines.push(clip(`${head} ${usage(row, report.now_ms)}`.trimEnd(), width));
  }
  for (const pool of report.exhausted) {
    const when = formatAge(pool.until_ms - report.now_ms);
    lines.push(clip(`${plainLine(pool.pool)} is exhausted: every account is at 100% for ${when}`, width));
  }
  return lines;
}

/** `42%  resets in 2h 10m`, or `unknown: <why>` for an error row. */
function usage(row: QuotaRow, now: number): string {
  if (row.error !== null) return `unknown: ${plainLine(row.error)}`;
  const used = `${Math.round(row.used_pct)}%`.padStart(4);
  if (row.resets_ms === null) return `${used}  no reset time`;
  if (row.resets_ms <= now) return `${used}  reset ${formatAge(now - row.resets_ms)} ago`;
  return `${used}  resets in ${formatAge(row.resets_ms - now)}`;
}
