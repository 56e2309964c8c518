// The peer cache's rules (spec, "Host service and status" and "Backoff"): when a peer may be read
// again (at most once per 10 s across every caller, never while it backs off), what a read's
// outcome does to the cache entry, and how a cached peer is judged for placement: its own headroom,
// refused while unreachable or once its snapshot is older than admission allows. Pure: `now` and
// the jitter draw come from the caller.

import { backoffDelayMs } from '../common/backoff.js';
import { type KnobEnv, testKnob } from '../common/test-knobs.js';
import { type Headroom, type ServiceState, SNAPSHOT_FRESH_MS } from '../placement/headroom.js';
import type { UnreachableCategory } from './unreachable.js';

/**
 * What a command waits for its peers at most: a fresh ssh with a dogsled start on the peer takes a
 * fraction of it; hooks have five seconds for everything.
 */
export const PEER_BUDGET_MS = 4_000;

/** The budget, or the PEER_BUDGET_MS knob's (a loaded test machine). */
export function peerBudgetMs(env: KnobEnv): number {
  return testKnob(env, 'PEER_BUDGET_MS') ?? PEER_BUDGET_MS;
}

/** At most one read per peer in this long, whoever asks. */
export const PEER_READ_EVERY_MS = 10_000;

/**
 * The largest `host snapshot` answer taken from a peer, in bytes on the wire. An honest one is a
 * few kilobytes, and this holds thousands of jobs and agent panes; a larger one is refused as
 * `remote command failed` before it is parsed, so it is never cached, nor read by every `status`.
 */
export const PEER_SNAPSHOT_MAX_BYTES = 8 * 1024 * 1024;

/** The part of a cache entry these rules read and write. */
export interface PeerReadState {
  /** Last read attempt, on this host's clock; null before the first. */
  attempt_ms: number | null;
  /** Last successful read, on this host's clock. */
  read_ms: number | null;
  /** Why the last attempt failed; null when it succeeded (or none was made). */
  unreachable: UnreachableCategory | null;
  /** Failed attempts in a row. */
  failures: number;
  /** No read before this (backoff); null when none is pending. */
  retry_at_ms: number | null;
}

export const NEVER_READ: PeerReadState = {
  attempt_ms: null,
  read_ms: null,
  unreachable: null,
  failures: 0,
  retry_at_ms: null,
};

/** Whether a read is due now; `force` (`dogsled retry`) skips the spacing and the backoff. */
export function peerReadDue(state: PeerReadState | undefined, now: number, force = false): boolean {
  if (force || state === undefined) return true;
  if (state.retry_at_ms !== null && now < state.retry_at_ms) return false;
  return state.attempt_ms === null || now - state.attempt_ms >= PEER_READ_EVERY_MS || now < state.attempt_ms;
}

/** A read that answered. */
export function afterPeerRead(now: number): PeerReadState {
  return { attempt_ms: now, read_ms: now, unreachable: null, failures: 0, retry_at_ms: null };
}

/**
 * A read that failed: the backoff's next wait (10 s doubling with jitter, at most 5 min), never
 * sooner than the read spacing, so jitter cannot make reads closer than 10 s.
 */
export function afterPeerFailure(
  state: PeerReadState | undefined,
  category: UnreachableCategory,
  now: number,
  random: number,
): PeerReadState {
  const failures = state?.failures ?? 0;
  const wait = Math.max(PEER_READ_EVERY_MS, backoffDelayMs(failures, random));
  return {
    attempt_ms: now,
    read_ms: state?.read_ms ?? null,
    unreachable: category,
    failures: failures + 1,
    retry_at_ms: now + wait,
  };
}

/** Milliseconds until the next read is allowed while a peer backs off, else null (`retry_ms`). */
export function retryInMs(state: PeerReadState | undefined, now: number): number | null {
  if (state?.retry_at_ms == null || state.unreachable === null) return null;
  return Math.max(0, state.retry_at_ms - now);
}

/**
 * A peer's service state: what it said from its lock; a peer too old to say (no `service` field)
 * keeps the 30-second age fallback: up while its snapshot is fresh.
 */
export function peerService(said: ServiceState | undefined, ageMs: number | null): ServiceState {
  if (said !== undefined) return said;
  return ageMs !== null && ageMs <= SNAPSHOT_FRESH_MS ? 'up' : 'down';
}

/**
 * The peer's headroom as it judged itself under its own policy, refused here while it cannot be
 * read or once the snapshot is older than admission allows (the read may be up to 10 s old, its
 * snapshot older still).
 */
export function peerHeadroom(
  own: Headroom,
  facts: { unreachable: UnreachableCategory | null; ageMs: number | null },
): Headroom {
  const reason = [...own.reason];
  if (facts.unreachable !== null) reason.unshift(`unreachable: ${facts.unreachable}`);
  const age = facts.ageMs;
  if (age !== null && age > SNAPSHOT_FRESH_MS && !reason.some((r) => r.startsWith('stale:'))) {
    reason.push(
      `stale: snapshot is ${Math.round(age / 1000)}s old, admission needs ${SNAPSHOT_FRESH_MS / 1000}s`,
    );
  }
  return { ...own, reason, eligible: own.eligible && reason.length === 0 };
}
