// Pushing a collected snapshot to peers: `host quota-store` over the transport, the snapshot on the
// verb's stdin. Per peer, a failure (unreachable, or a peer whose dogsled has no quota storage yet)
// waits out the shared backoff (core/backoff.ts) before the next try; a peer that keeps a newer
// snapshot has succeeded. The snapshot holds no management credential: nothing secret leaves.

import { backoffRetryAt } from '../core/common/backoff.js';
import { messageOf } from '../core/common/errors.js';
import type { QuotaSnapshot } from '../core/quota/quota-rows.js';
import { NO_PUSH, type PushState, pushDue } from '../core/quota/quota-rules.js';
import type { PeerTarget, Transport } from '../transport/types.js';

export interface PushOutcome {
  host: string;
  ok: boolean;
  /** The peer wrote it (false: it already held one as new or newer). */
  stored: boolean;
  /** Why the push failed (one line), or null. */
  error: string | null;
  /** When this peer is tried again after a failure (Unix ms), or null. */
  retry_at_ms: number | null;
}

export interface PusherOptions {
  transport: Transport;
  now: () => number;
  random?: () => number;
  /** The whole call per peer (default: the transport's routine 30 s). */
  timeoutMs?: number;
  /** The service's stop: pushes under way end, and one cut short is neither a failure nor reported. */
  signal?: AbortSignal;
}

export class QuotaPusher {
  private readonly states = new Map<string, PushState>();

  constructor(private readonly options: PusherOptions) {}

  /** Sends `snapshot` to each peer it is due for (newer than what the peer took, backoff over). */
  async push(snapshot: QuotaSnapshot, peers: readonly PeerTarget[]): Promise<PushOutcome[]> {
    // A peer that left the list (disabled, removed) is forgotten: its past backoff would otherwise
    // keep nextRetryAt in the past and wake the worker every second.
    for (const host of this.states.keys()) {
      if (!peers.some((peer) => peer.host === host)) this.states.delete(host);
    }
    const due = peers.filter((peer) =>
      pushDue(this.stateOf(peer.host), snapshot.fetched_ms, this.options.now()),
    );
    const input = `${JSON.stringify(snapshot)}\n`;
    const outcomes = await Promise.all(due.map((peer) => this.pushOne(peer, snapshot.fetched_ms, input)));
    return outcomes.filter((outcome) => outcome !== undefined);
  }

  /** The earliest retry among peers that failed, or null when none waits. */
  nextRetryAt(): number | null {
    let next: number | null = null;
    for (const state of this.states.values()) {
      if (state.failures > 0) next = next === null ? state.retry_at_ms : Math.min(next, state.retry_at_ms);
    }
    return next;
  }

  private stateOf(host: string): PushState {
    return this.states.get(host) ?? NO_PUSH;
  }

  private async pushOne(
    peer: PeerTarget,
    fetched_ms: number,
    input: string,
  ): Promise<PushOutcome | undefined> {
    const { signal } = this.options;
    let error: string;
    try {
      const reply = await this.options.transport.exec(peer, ['quota-store'], {
        input,
        ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }),
        ...(signal ? { signal } : {}),
      });
      if (reply.ok) {
        this.states.set(peer.host, { pushed_ms: fetched_ms, failures: 0, retry_at_ms: 0 });
        const stored = (reply.value as { stored?: unknown } | null)?.stored === true;
        return { host: peer.host, ok: true, stored, error: null, retry_at_ms: null };
      }
      error = reply.error;
    } catch (thrown) {
      // Stopped: the next service run pushes it, this peer owing no backoff for it.
      if (signal?.aborted) return undefined;
      error = messageOf(thrown);
    }
    const before = this.stateOf(peer.host);
    const now = this.options.now();
    const retry_at_ms = backoffRetryAt(now, before.failures, (this.options.random ?? Math.random)());
    this.states.set(peer.host, { ...before, failures: before.failures + 1, retry_at_ms });
    return { host: peer.host, ok: false, stored: false, error, retry_at_ms };
  }
}
