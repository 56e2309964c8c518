// A command's cold peer reads, started before the cache's reader reaches them. Without a service on
// this host each peer read is one fresh `ssh` (the handshake is most of a cold `status`), and the
// reader (peer-cache.ts) first reads the entry through its schema and takes the entry's lock: work
// that now runs while ssh connects instead of before it. Only a read that is certainly due is
// started early (no entry, or one whose own fields say so, and no reader holding its lock); the
// reader, once under the lock, takes the running call as its own read when it still wants one, and
// a call it did not take (another caller read first) is stopped when the command's reads end. So a
// peer is still read at most once per due entry per caller, and the reader's rules (spacing,
// backoff, budget, what is written) are unchanged: only when the ssh starts moves.

import { existsSync } from 'node:fs';
import { isIntOrNull, isRecord } from '../core/common/shape.js';
import { PEER_SNAPSHOT_MAX_BYTES, peerReadDue } from '../core/fleet/peer-reads.js';
import { glanceJson } from '../state/engine/glance-file.js';
import type { StateIO } from '../state/io.js';
import { OpenSshTransport } from '../transport/openssh.js';
import type { ExecOptions, PeerTarget, Transport, VerbReply } from '../transport/types.js';
import type { PeerHost } from './fleet.js';
import { peerEntryPath, peerTarget } from './peer-cache.js';

/** The one verb started early: the cache's read (peer-cache.ts, readPeer). */
const SNAPSHOT: readonly string[] = ['snapshot'];

interface Early {
  reply: Promise<VerbReply>;
  stop: AbortController;
}

export interface PrefetchIO extends Pick<StateIO, 'paths' | 'now' | 'signal'> {
  env: NodeJS.ProcessEnv;
  remoteCommand: readonly string[];
}

/**
 * `inner` with the due reads of `peers` already under way over OpenSSH; `inner` itself when none is
 * (a service here reads for the command through its pool, peer-read-client.ts, so nothing starts).
 * The caller closes it once its reads are done: a call nobody took is stopped then.
 */
export function prefetchPeerReads(
  io: PrefetchIO,
  peers: readonly PeerHost[],
  inner: Transport,
  budgetMs: number,
): Transport {
  if (io.signal?.aborted || existsSync(io.paths.peerReadSock)) return inner;
  const now = io.now();
  const due = peers.filter((peer) => peer.via !== 'bus' && certainlyDue(io, peer, now));
  if (due.length === 0) return inner;
  const ssh = new OpenSshTransport({ env: io.env });
  const early = new Map<string, Early>();
  for (const peer of due) {
    const target = peerTarget(peer, io.remoteCommand);
    const stop = new AbortController();
    const signal = io.signal ? AbortSignal.any([stop.signal, io.signal]) : stop.signal;
    // The reader's deadline starts after this one, so this read never outlives it.
    const reply = ssh.exec(target, SNAPSHOT, {
      timeoutMs: budgetMs,
      maxReplyBytes: PEER_SNAPSHOT_MAX_BYTES,
      signal,
    });
    // Settled by whoever takes it, or ignored once stopped.
    reply.catch(() => undefined);
    early.set(keyOf(target), { reply, stop });
  }
  return new PrefetchedReads(inner, early);
}

/**
 * Due by the entry's own fields as the reader would judge them (no entry, another target, the
 * spacing or backoff over), and no reader holding its lock. Anything it doubts (a file it cannot
 * read, fields it does not know) is left to the reader: nothing starts early.
 */
function certainlyDue(io: Pick<StateIO, 'paths'>, peer: PeerHost, now: number): boolean {
  const file = peerEntryPath(io, peer.id);
  if (existsSync(`${file}.lock`)) return false;
  const glanced = glanceJson(file);
  if (glanced === undefined) return false;
  if (!glanced.found) return true;
  const entry = glanced.value;
  if (!isRecord(entry) || typeof entry.target !== 'string') return false;
  if (entry.target !== peer.target) return true;
  if (!isIntOrNull(entry.attempt_ms) || !isIntOrNull(entry.retry_at_ms)) return false;
  return peerReadDue(
    {
      attempt_ms: entry.attempt_ms,
      retry_at_ms: entry.retry_at_ms,
      read_ms: null,
      unreachable: null,
      failures: 0,
    },
    now,
  );
}

const keyOf = (target: PeerTarget): string => JSON.stringify([target.host, target.remoteCommand]);

class PrefetchedReads implements Transport {
  constructor(
    private readonly inner: Transport,
    private readonly early: Map<string, Early>,
  ) {}

  get kind(): Transport['kind'] {
    return this.inner.kind;
  }

  async exec(target: PeerTarget, argv: readonly string[], options: ExecOptions = {}): Promise<VerbReply> {
    const key = keyOf(target);
    const started = this.early.get(key);
    const same =
      started !== undefined &&
      target.bus === undefined &&
      argv.length === 1 &&
      argv[0] === SNAPSHOT[0] &&
      options.input === undefined &&
      options.maxReplyBytes === PEER_SNAPSHOT_MAX_BYTES;
    if (!same) return this.inner.exec(target, argv, options);
    this.early.delete(key);
    const { signal } = options;
    if (signal?.aborted) started.stop.abort(signal.reason);
    const onAbort = () => started.stop.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await started.reply;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Stops every read nobody took and waits for its ssh to end, then closes `inner`. */
  async close(): Promise<void> {
    const left = [...this.early.values()];
    this.early.clear();
    for (const { stop } of left) stop.abort(new DOMException('peer read not needed', 'AbortError'));
    await Promise.all(left.map(({ reply }) => reply.catch(() => undefined)));
    await this.inner.close();
  }
}
