// A command's cold peer reads, started before the cache's reader (peer-cache.ts) reaches them.
// Without a service on this host each peer read is one fresh `ssh`, whose handshake is most of a
// cold `status`; the reader first builds the entry's schema, reads it and takes its lock, and only
// then starts ssh. Here, for a peer whose entry is certainly due, the entry's lock is taken at once
// (lockNow, lock.ts's own lock) and ssh started, and the rest (the entry read through its check,
// the reply judged as the reader judges it, the entry written under the lock) follows while ssh
// connects. The lock is what keeps the cache's promise of one read per peer per 10 s across every
// caller: a caller that finds it held starts nothing and waits for the holder as the reader does.
// Anything in doubt (a lock held, a file it cannot read, fields it does not know, a service here,
// whose pool reads for the command: peer-read-client.ts) starts nothing, and the reader answers.
// The lean `status --json` (actions/status-json-glance.ts) starts its cold reads here too (startDueReads):
// every peer certainly due or none, through the service's pool when one runs here. Entries and
// replies are judged by their hand checks alone (held equal to their schemas: a read uses only the
// verdict, and an entry in doubt is left to the reader, which quarantines and words it), so none of
// this loads zod.

import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { isIntOrNull, isRecord } from '../core/common/shape.js';
import { testKnob } from '../core/common/test-knobs.js';
import type { PeerEntry } from '../core/fleet/fleet-types.js';
import { PEER_READ_EVERY_MS, PEER_SNAPSHOT_MAX_BYTES, peerReadDue } from '../core/fleet/peer-reads.js';
import { PeerEntryCheck } from '../state/checks/peer-entry-check.js';
import { glanceJson } from '../state/engine/glance-file.js';
import { DOUBT, lockNow, readNow, writeNow } from '../state/engine/update-now.js';
import type { StateIO } from '../state/io.js';
import { STATE_DIR_MODE, STATE_FILE_MODE } from '../state/paths.js';
import { OpenSshTransport } from '../transport/openssh.js';
import type { Transport } from '../transport/types.js';
import type { PeerHost } from './fleet.js';
import { peerEntryPath } from './peer-glance.js';
import { peerReadTransport } from './peer-read-client.js';
import { judgePeerRead, peerTarget } from './peer-read-judge.js';

export interface EarlyReadIO extends StateIO {
  env: NodeJS.ProcessEnv;
  remoteCommand: readonly string[];
}

/**
 * The reads of `peers` started now, by peer id: each resolves with the entry it wrote, or undefined
 * when it left the peer to the reader before reading (nothing written). None when a service runs
 * here. A read is bounded by `budgetMs` from now, so by the reader's budget, which starts later.
 */
export function startEarlyReads(
  io: EarlyReadIO,
  peers: readonly PeerHost[],
  budgetMs: number,
): Map<string, Promise<PeerEntry | undefined>> {
  const early = new Map<string, Promise<PeerEntry | undefined>>();
  if (io.signal?.aborted || existsSync(io.paths.peerReadSock)) return early;
  const now = io.now();
  for (const peer of peers) {
    if (peer.via === 'bus') continue;
    const file = peerEntryPath(io, peer.id);
    // A test that freezes a holder inside this lock means the reader's own lock (lock.ts's pause).
    if (testKnob(io.env, 'LOCK_HOLD_FILE') === basename(file)) continue;
    if (!certainlyDue(file, peer, now)) continue;
    try {
      mkdirSync(io.paths.peers, { recursive: true, mode: STATE_DIR_MODE });
    } catch {
      return early;
    }
    const held = lockNow(file);
    if (held === undefined) continue;
    early.set(peer.id, readEarly(io, peer, file, held, budgetMs, new OpenSshTransport({ env: io.env })));
  }
  return early;
}

/**
 * The lean `status --json`'s reads of `peers`, none of whose entries is fresh: undefined, with
 * nothing started, unless every one is certainly due; else the reads started, by peer id, as
 * startEarlyReads starts them, but through the service's pool when it runs here (the transport the
 * reader would use: peer-read-client.ts). A peer whose lock was taken meanwhile is left out: the
 * caller waits for the others and leaves the answer to the full reader.
 */
export function startDueReads(
  io: EarlyReadIO,
  peers: readonly PeerHost[],
  budgetMs: number,
): Map<string, Promise<PeerEntry | undefined>> | undefined {
  if (io.signal?.aborted) return undefined;
  const now = io.now();
  const files = peers.map((peer) => peerEntryPath(io, peer.id));
  const due = peers.every(
    (peer, i) =>
      peer.via !== 'bus' &&
      testKnob(io.env, 'LOCK_HOLD_FILE') !== basename(files[i] as string) &&
      certainlyDue(files[i] as string, peer, now),
  );
  if (!due) return undefined;
  try {
    mkdirSync(io.paths.peers, { recursive: true, mode: STATE_DIR_MODE });
  } catch {
    return undefined;
  }
  const transport = existsSync(io.paths.peerReadSock)
    ? peerReadTransport(io)
    : new OpenSshTransport({ env: io.env });
  const early = new Map<string, Promise<PeerEntry | undefined>>();
  for (const [i, peer] of peers.entries()) {
    const file = files[i] as string;
    const held = lockNow(file);
    if (held !== undefined) early.set(peer.id, readEarly(io, peer, file, held, budgetMs, transport));
  }
  return early;
}

async function readEarly(
  io: EarlyReadIO,
  peer: PeerHost,
  file: string,
  held: NonNullable<ReturnType<typeof lockNow>>,
  budgetMs: number,
  transport: Transport,
): Promise<PeerEntry | undefined> {
  const stop = new AbortController();
  const signal = io.signal ? AbortSignal.any([stop.signal, io.signal]) : stop.signal;
  const reply = transport.exec(peerTarget(peer, io.remoteCommand), ['snapshot'], {
    timeoutMs: budgetMs,
    maxReplyBytes: PEER_SNAPSHOT_MAX_BYTES,
    signal,
  });
  // Settled below, or dropped once stopped.
  reply.catch(() => undefined);
  try {
    // While ssh connects: the entry as the reader would read it under this lock.
    const current = readNow(file, PeerEntryCheck);
    const base = current === DOUBT || current?.target !== peer.target ? undefined : current;
    if (current === DOUBT || !peerReadDue(base, io.now())) {
      // The reader quarantines a file in doubt, and a read no longer due is not made.
      stop.abort(new DOMException('left to the reader', 'AbortError'));
      await reply.catch(() => undefined);
      return undefined;
    }
    const next = await judgePeerRead({ ...io, signal }, peer, base, () => reply);
    // As lock.ts's writers do: a lock lost meanwhile (broken as abandoned) writes nothing.
    if (held.owned()) writeNow(file, PeerEntryCheck, next, { mode: STATE_FILE_MODE, durable: true });
    return next;
  } catch (error) {
    // The command stops: nothing was learnt or written, and the reader, stopped too, says so.
    if (io.signal?.aborted) return undefined;
    throw error;
  } finally {
    held.release();
  }
}

/**
 * Due by the entry's own fields as the reader judges them (no entry, another target, the spacing or
 * the backoff over), and no one holding its lock. Whatever it doubts is left to the reader.
 */
function certainlyDue(file: string, peer: PeerHost, now: number): boolean {
  if (existsSync(`${file}.lock`)) return false;
  // A warm command's one look: an entry written within the spacing was attempted within it (an
  // entry is written after its read), so it is not due, and is not read here at all.
  const stat = statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return true;
  if (!stat.isFile() || Math.abs(now - stat.mtimeMs) < PEER_READ_EVERY_MS) return false;
  const glanced = glanceJson(file);
  if (glanced === undefined) return false;
  if (!glanced.found) return true;
  const entry = glanced.value;
  if (!isRecord(entry) || typeof entry.target !== 'string') return false;
  if (entry.target !== peer.target) return true;
  if (!isIntOrNull(entry.attempt_ms) || !isIntOrNull(entry.retry_at_ms)) return false;
  const state = { attempt_ms: entry.attempt_ms, retry_at_ms: entry.retry_at_ms };
  return peerReadDue({ ...state, read_ms: null, unreachable: null, failures: 0 }, now);
}
