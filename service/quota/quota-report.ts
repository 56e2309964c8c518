// What `quota` shows: the snapshot (collected now when asked and possible, else the cache), its
// age and staleness, and the pools that are exhausted now. The CLI renders it; the MCP server and
// the board will read the same report.

import type { QuotaSnapshot } from '../core/quota/quota-rows.js';
import { type ExhaustedPool, exhaustedPools, isStale, snapshotAgeMs } from '../core/quota/quota-rules.js';
import type { HostIO } from '../state/io.js';
import { hostQuotaIO, type QuotaMode, refreshQuota } from './refresh.js';

export interface QuotaReport {
  snapshot: QuotaSnapshot;
  now_ms: number;
  /** null when there is no snapshot (fetched_ms 0). */
  age_ms: number | null;
  /** Older than 15 minutes, or none at all. */
  stale: boolean;
  exhausted: ExhaustedPool[];
  /** This call collected the snapshot. */
  collected: boolean;
  /** Why the cache is shown although more was asked, or null. */
  note: string | null;
}

export async function quotaReport(io: HostIO, mode: QuotaMode): Promise<QuotaReport> {
  const outcome = await refreshQuota(hostQuotaIO(io), mode);
  const now = io.now();
  return {
    snapshot: outcome.snapshot,
    now_ms: now,
    age_ms: snapshotAgeMs(outcome.snapshot, now),
    stale: isStale(outcome.snapshot, now),
    exhausted: exhaustedPools(outcome.snapshot, now),
    collected: outcome.collected,
    note: outcome.note,
  };
}
