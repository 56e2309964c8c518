// Quota-aware admission (beyond the spec, DESIGN §6): a child of a harness whose quota pool is
// exhausted stays queued, with the reason on its ticket and the board, until the pool frees up.
// Only a fresh snapshot can hold work back: a stale one, a pool it does not list, or an account
// known only by error rows is unknown, and unknown never blocks. Pure; not wired into admission yet.

import type { QuotaSnapshot } from './quota-rows.js';
import { exhaustedPools, isStale } from './quota-rules.js';

export interface QuotaHoldPolicy {
  /** `[quota] hold_when_exhausted`: keep such children queued (default true). */
  hold_when_exhausted: boolean;
}

export interface QuotaHold {
  pool: string;
  /** When the pool's first account frees up (Unix ms): admission looks again then. */
  until_ms: number;
  /** One line for the ticket and the board. */
  reason: string;
}

/**
 * The CLIProxy pool a harness's child draws on: Claude Code on `claude`, Codex on `codex`. Pi picks
 * its provider per model, so it has no single pool and is never held.
 */
export function poolOfHarness(harness: string): string | null {
  if (harness === 'claude') return 'claude';
  if (harness === 'codex') return 'codex';
  return null;
}

/** Why a child of `harness` should wait for quota now, or null when it may be admitted. */
export function quotaHold(
  harness: string,
  snapshot: QuotaSnapshot,
  policy: QuotaHoldPolicy,
  now: number,
): QuotaHold | null {
  if (!policy.hold_when_exhausted) return null;
  const pool = poolOfHarness(harness);
  if (pool === null || isStale(snapshot, now)) return null;
  const exhausted = exhaustedPools(snapshot, now).find((p) => p.pool === pool);
  if (!exhausted) return null;
  return {
    pool,
    until_ms: exhausted.until_ms,
    reason: `${pool} quota exhausted: every account is at 100% until its reset`,
  };
}
