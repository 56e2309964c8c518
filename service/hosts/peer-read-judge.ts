// One read of a peer judged into its cache entry, and the target a read travels to: shared by the
// cache's reader (peer-cache.ts), the early reads of a command (peer-prefetch.ts, which the lean
// `status --json` starts too) and the service. A reply is judged by its hand check alone: the
// verdict is all a read uses, and PeerReplyCheck is held equal to PeerReplySchema
// (hand-checks.test.ts), so no caller builds the schema and the lean bundle carries no zod.

import { messageOf } from '../core/common/errors.js';
import type { PeerEntry } from '../core/fleet/fleet-types.js';
import { afterPeerFailure, afterPeerRead, NEVER_READ, type PeerReadState } from '../core/fleet/peer-reads.js';
import { PeerReplyCheck } from '../state/checks/peer-entry-check.js';
import type { StateIO } from '../state/io.js';
import { type PeerTarget, UnreachableError, type VerbReply } from '../transport/types.js';
import type { PeerHost } from './fleet.js';

/** What judging a read needs: the clock, the warnings, the caller's stop and the backoff's jitter. */
export type JudgeIO = Pick<StateIO, 'now' | 'warn' | 'signal'> & { random?: () => number };

/** Where a read of `peer` goes: its ssh target, or its bus id for a host met on the bus. */
export function peerTarget(
  peer: Pick<PeerHost, 'id' | 'target' | 'via'>,
  remoteCommand: readonly string[],
): PeerTarget {
  return peer.via === 'bus'
    ? { host: peer.target, remoteCommand, bus: peer.id }
    : { host: peer.target, remoteCommand };
}

/**
 * The entry after one read of `peer` (`call`, its `host snapshot`), from the entry as it stood
 * (`current`): the reply checked, or the failure with its backoff and the last good reply kept. The
 * cache's reader (peer-cache.ts) and an early one (peer-prefetch.ts) both judge a read this way.
 */
export async function judgePeerRead(
  io: JudgeIO,
  peer: PeerHost,
  current: PeerEntry | undefined,
  call: () => Promise<VerbReply>,
): Promise<PeerEntry> {
  const random = io.random ?? Math.random;
  const state: PeerReadState = current ?? NEVER_READ;
  const entry = (read: PeerReadState, reply: PeerEntry['reply']): PeerEntry => ({
    version: 1,
    id: peer.id,
    target: peer.target,
    ...read,
    reply,
  });
  try {
    const answer = await call();
    const reply = answer.ok ? PeerReplyCheck.safeParse(answer.value) : undefined;
    if (!reply?.success) {
      const why = answer.ok ? 'a snapshot that is not dogsled' : answer.error;
      io.warn(`dogsled: warning: peer ${peer.id}: host snapshot: ${why}`);
      return entry(
        afterPeerFailure(state, 'remote command failed', io.now(), random()),
        current?.reply ?? null,
      );
    }
    return entry(afterPeerRead(io.now()), reply.data);
  } catch (error) {
    // The caller stopped (the service ends): nothing was learnt of the peer, and nothing is written.
    if (io.signal?.aborted) throw error;
    if (!(error instanceof UnreachableError)) {
      // This host's own trouble (no ssh binary, a config ssh cannot resolve): said, and cached as a
      // failed read so it is not retried by every caller.
      io.warn(`dogsled: warning: peer ${peer.id}: ${messageOf(error)}`);
      return entry(
        afterPeerFailure(state, 'remote command failed', io.now(), random()),
        current?.reply ?? null,
      );
    }
    return entry(afterPeerFailure(state, error.category, io.now(), random()), current?.reply ?? null);
  }
}
