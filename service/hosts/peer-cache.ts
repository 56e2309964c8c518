// The shared peer cache: one file per peer (peers/ID.json), each read from its peer under that
// file's lock, so every caller on this host (status, place, the service) shares one read per peer
// per 10 s. A caller that finds the lock held waits for the holder's read, within its own budget,
// and then finds the entry fresh. Peers are read in parallel; a dead or hung peer costs a caller at
// most its budget, and its failure is cached with a backoff so the next callers do not wait at all.

import { mkdir } from 'node:fs/promises';
import { messageOf } from '../core/common/errors.js';
import type { PeerEntry } from '../core/fleet/fleet-types.js';
import { PEER_SNAPSHOT_MAX_BYTES, peerReadDue } from '../core/fleet/peer-reads.js';
import { PeerEntryCheck } from '../state/checks/peer-entry-check.js';
import { handFirst, type RecordCheck } from '../state/engine/record-check.js';
import { readState, updateState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { STATE_DIR_MODE } from '../state/paths.js';
import { PeerEntrySchema } from '../state/schemas/peer-schemas.js';
import { monotonicMs } from '../time/timers.js';
import type { Transport } from '../transport/types.js';
import type { PeerHost } from './fleet.js';
import { peerEntryPath } from './peer-glance.js';
import { judgePeerRead, peerTarget } from './peer-read-judge.js';

export interface PeerReadIO extends StateIO {
  transport: Transport;
  remoteCommand: readonly string[];
  random?: () => number;
}

export interface RefreshOptions {
  /** The longest this caller waits, for the lock and for the read together. */
  budgetMs: number;
  /** `dogsled retry`: read now, whatever the spacing and the backoff. */
  force?: boolean;
}

/**
 * What the cache reads and writes entries with: the hand check, equal to PeerEntrySchema, so a warm
 * command never builds the schema; an entry it refuses is judged again by the schema (built only
 * then), so an entry in doubt is quarantined and warned of exactly as before.
 */
export const PeerEntryFirst: RecordCheck<PeerEntry> = handFirst(PeerEntryCheck, PeerEntrySchema);

export { judgePeerRead, peerEntryPath, peerTarget };

/** The cached entry, read without the lock (entries are replaced atomically). */
export async function readPeerEntry(io: StateIO, id: string): Promise<PeerEntry | undefined> {
  return readState(peerEntryPath(io, id), PeerEntryFirst, io);
}

/**
 * Reads `peer` into the cache when a read is due, else leaves the entry as it is; resolves with the
 * entry as it stands afterwards (undefined when none could be had within the budget).
 */
export async function refreshPeer(
  io: PeerReadIO,
  peer: PeerHost,
  options: RefreshOptions,
): Promise<PeerEntry | undefined> {
  // The service keeps a bus peer's entry from the bus; nobody reads it over SSH.
  if (peer.via === 'bus') return readPeerEntry(io, peer.id);
  const started = monotonicMs();
  const file = peerEntryPath(io, peer.id);
  if (!options.force) {
    const cached = await readPeerEntry(io, peer.id).catch(() => undefined);
    if (cached !== undefined && !peerReadDue(cached, io.now())) return cached;
  }
  await mkdir(io.paths.peers, { recursive: true, mode: STATE_DIR_MODE });
  // The budget bounds the wait for the lock; a read once under way is bounded by its own timeout
  // (what is left of the budget), and what it found is written even as the budget ends.
  const waiting = new AbortController();
  let locked = false;
  const timer = setTimeout(() => {
    if (!locked) waiting.abort(new DOMException('peer budget spent waiting', 'TimeoutError'));
  }, options.budgetMs);
  const signal = io.signal ? AbortSignal.any([waiting.signal, io.signal]) : waiting.signal;
  try {
    return await updateState(file, PeerEntryFirst, { ...io, signal }, async (current) => {
      locked = true;
      const now = io.now();
      const base = current?.target === peer.target ? current : undefined;
      if (!peerReadDue(base, now, options.force)) return { result: current };
      // Our wait for the lock ate most of the budget: a read now would be cut short and blamed on
      // the peer. Whoever held the lock has just read; the next caller reads.
      const left = options.budgetMs - (monotonicMs() - started);
      if (!options.force && base !== undefined && left < options.budgetMs / 2) return { result: current };
      const next = await readPeer(io, peer, base, Math.max(1, left));
      return { result: next, next };
    });
  } catch (error) {
    if (!signal.aborted) throw error;
    // Out of budget (a lock held by a reader of a hung peer): the entry as it stands.
    return readPeerEntry(io, peer.id).catch(() => undefined);
  } finally {
    clearTimeout(timer);
  }
}

async function readPeer(
  io: PeerReadIO,
  peer: PeerHost,
  current: PeerEntry | undefined,
  timeoutMs: number,
): Promise<PeerEntry> {
  return judgePeerRead(io, peer, current, () =>
    io.transport.exec(peerTarget(peer, io.remoteCommand), ['snapshot'], {
      timeoutMs,
      maxReplyBytes: PEER_SNAPSHOT_MAX_BYTES,
      ...(io.signal ? { signal: io.signal } : {}),
    }),
  );
}

/** Every peer refreshed in parallel within one budget; entries by peer id (absent: none yet). */
export async function refreshPeers(
  io: PeerReadIO,
  peers: readonly PeerHost[],
  options: RefreshOptions & {
    /** Reads already under way (peer-prefetch.ts), by peer id: undefined when one left it to us. */
    early?: ReadonlyMap<string, Promise<PeerEntry | undefined>>;
  },
): Promise<Map<string, PeerEntry | undefined>> {
  const entries = await Promise.all(
    peers.map((peer) =>
      (async () => (await options.early?.get(peer.id)) ?? refreshPeer(io, peer, options))().catch(
        (error: unknown) => {
          io.warn(`dogsled: warning: peer ${peer.id}: ${messageOf(error)}`);
          return readPeerEntry(io, peer.id).catch(() => undefined);
        },
      ),
    ),
  );
  return new Map(peers.map((peer, i) => [peer.id, entries[i]]));
}
