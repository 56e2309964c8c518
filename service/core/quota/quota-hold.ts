// Quota-aware admission (beyond the spec, DESIGN §6): a child of a harness whose quota pool is
// exhausted stays queued, with the reason on its ticket and the board, until the pool frees up.
// Only a fresh snapshot can hold work back: a stale one, a pool it does not list, or an account
// known only by error rows is unknown, and unknown never blocks. A held ticket holds no host: work
// behind it (jobs, other harnesses) is admitted past it. Pure; the admission worker applies it.

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

/**
 * The harness a ticket's work runs, when it names one: an agent ticket's kind (`claude`, `codex`,
 * `pi`). Jobs and placements name none, so quota never holds them.
 */
export function harnessOfTicket(ticket: object): string | null {
  const agent = (ticket as { agent?: unknown }).agent;
  if (agent === null || typeof agent !== 'object') return null;
  const kind = (agent as { kind?: unknown }).kind;
  return typeof kind === 'string' ? kind : null;
}

/** The holds of `pending` tickets at `now`, by ticket id; a ticket that may be admitted has none. */
export function ticketHolds<T extends { id: string }>(
  pending: readonly T[],
  snapshot: QuotaSnapshot,
  policy: QuotaHoldPolicy,
  now: number,
): Map<string, QuotaHold> {
  const holds = new Map<string, QuotaHold>();
  for (const ticket of pending) {
    const harness = harnessOfTicket(ticket);
    const hold = harness === null ? null : quotaHold(harness, snapshot, policy, now);
    if (hold !== null) holds.set(ticket.id, hold);
  }
  return holds;
}

/** Whether any pending ticket could be held: only then is the quota snapshot worth reading. */
export function mayHold(pending: readonly object[], policy: QuotaHoldPolicy): boolean {
  if (!policy.hold_when_exhausted) return false;
  return pending.some((ticket) => {
    const harness = harnessOfTicket(ticket);
    return harness !== null && poolOfHarness(harness) !== null;
  });
}

/**
 * Whether the hold recorded on a ticket still stands at `now`: new work does not queue behind a
 * ticket that waits for quota, only behind one that waits for a host.
 */
export function isHeld(ticket: { hold?: Pick<QuotaHold, 'until_ms'> | null }, now: number): boolean {
  return ticket.hold != null && ticket.hold.until_ms > now;
}

/** Whether two holds say the same (null for none): only a change is written. */
export function sameHold(a: QuotaHold | null | undefined, b: QuotaHold | null | undefined): boolean {
  if (a == null || b == null) return a == null && b == null;
  return a.pool === b.pool && a.until_ms === b.until_ms && a.reason === b.reason;
}
