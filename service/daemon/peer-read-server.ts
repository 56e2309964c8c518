// peer-read.sock: the service reads a peer's snapshot for a command over its pooled ssh2 connection
// (peer-read-client.ts is the command's side, core/fleet/peer-read-wire.ts the lines). The socket is
// 0600 in the 0700 state dir, so only this user connects. A request names a peer by its target and
// remote command; only an enabled SSH peer of the service's own config with both the same is read,
// and only `snapshot`, so the socket makes the service ssh nowhere a command could not already.
// Nothing here touches the peer cache: the command holds the entry's lock and writes what it learnt,
// as with its own read. Whatever the service will not do (a peer it does not know, its pool backing
// off from that peer, an error of this host's) it declines, and the command reads the peer itself.

import { unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { messageOf } from '../core/common/errors.js';
import {
  PEER_READ_BEAT,
  PEER_READ_BEAT_MS,
  PEER_READ_HELLO,
  PEER_READ_REQUEST_MAX_BYTES,
  type PeerReadAnswer,
  type PeerReadRequest,
  parsePeerReadRequest,
  peerReadLine,
} from '../core/fleet/peer-read-wire.js';
import { PEER_SNAPSHOT_MAX_BYTES } from '../core/fleet/peer-reads.js';
import { enabledPeers } from '../hosts/fleet.js';
import { peerTarget } from '../hosts/peer-cache.js';
import { bindServiceSocket } from '../state/engine/private-socket.js';
import type { HostIO } from '../state/io.js';
import type { SshPool } from '../transport/pool.js';
import { oversizeDetail, ROUTINE_TIMEOUT_MS, UnreachableError } from '../transport/types.js';

/** A connection that has not sent its request line by then is closed. */
const REQUEST_WAIT_MS = 5_000;
/** Commands read their peers in parallel, a few at a time: more than this waits in the backlog. */
const MAX_CONNECTIONS = 64;
/** Kept from the caller's deadline so the service's answer reaches it before its own timer ends. */
const ANSWER_MARGIN_MS = 25;

export interface PeerReadServer {
  stop(): Promise<void>;
}

/** Serves peer-read.sock until stopped; undefined (after one warning) when it cannot be bound. */
export async function startPeerReadServer(
  io: HostIO,
  pool: SshPool,
  signal: AbortSignal,
): Promise<PeerReadServer | undefined> {
  const path = io.paths.peerReadSock;
  const warn = (why: string) =>
    io.warn(`dogsled serve: warning: peer-read.sock ${why}; commands read their peers themselves`);
  const connections = new Set<Socket>();
  const server: Server = createServer((connection) => {
    connections.add(connection);
    connection.on('close', () => connections.delete(connection));
    serveOne(io, pool, signal, connection);
  });
  server.maxConnections = MAX_CONNECTIONS;
  if (!(await bindServiceSocket(server, path, warn))) return undefined;
  return {
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A read under way ends with the pool; its caller, cut off, reads the peer itself.
      for (const connection of connections) connection.destroy();
      await closed;
      // Bound under a private name and renamed: close does not remove the path itself.
      await unlink(path).catch(() => undefined);
    },
  };
}

function serveOne(io: HostIO, pool: SshPool, stop: AbortSignal, connection: Socket): void {
  const gone = new AbortController();
  connection.on('error', () => connection.destroy());
  connection.on('close', () => gone.abort());
  connection.write(PEER_READ_HELLO);
  const waiting = setTimeout(() => connection.destroy(), REQUEST_WAIT_MS);
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer): void => {
    chunks.push(chunk);
    size += chunk.length;
    const end = chunk.indexOf(0x0a);
    if (end < 0) {
      if (size > PEER_READ_REQUEST_MAX_BYTES) {
        clearTimeout(waiting);
        connection.destroy();
      }
      return;
    }
    clearTimeout(waiting);
    connection.off('data', onData);
    const line = Buffer.concat(chunks).subarray(0, size - chunk.length + end);
    if (line.length > PEER_READ_REQUEST_MAX_BYTES) {
      connection.destroy();
      return;
    }
    const parsed = parsePeerReadRequest(line.toString('utf8'));
    // The caller takes a silence for a frozen service and reads the peer itself.
    const beat = setInterval(() => {
      if (!connection.destroyed) connection.write(PEER_READ_BEAT);
    }, PEER_READ_BEAT_MS);
    connection.on('close', () => clearInterval(beat));
    const answering =
      typeof parsed === 'string'
        ? Promise.resolve<PeerReadAnswer>({ declined: parsed })
        : answer(io, pool, parsed, AbortSignal.any([stop, gone.signal]));
    void answering
      .catch((error: unknown): PeerReadAnswer => ({ declined: messageOf(error) }))
      .then((reply) => {
        clearInterval(beat);
        if (!connection.destroyed) connection.end(peerReadLine(reply));
      });
  };
  connection.on('data', onData);
}

async function answer(
  io: HostIO,
  pool: SshPool,
  request: PeerReadRequest,
  signal: AbortSignal,
): Promise<PeerReadAnswer> {
  const started = performance.now();
  const remote = io.config.remote_command;
  if (request.remote.length !== remote.length || request.remote.some((word, i) => word !== remote[i]))
    return { declined: 'another remote command than the service reads with' };
  const peer = (await enabledPeers(io)).find((p) => p.target === request.host && p.via !== 'bus');
  if (peer === undefined) return { declined: 'not a peer of this service' };
  const target = peerTarget(peer, remote);
  // The pool would fail at once with its last failure; the command's cache says a read is due now.
  const backoff = pool.state(target).retryAtMs;
  if (backoff !== null && io.now() < backoff) return { declined: 'the pool backs off from this peer' };
  const maxBytes = Math.min(request.max_bytes, PEER_SNAPSHOT_MAX_BYTES);
  const deadline = started + Math.min(request.timeout_ms, ROUTINE_TIMEOUT_MS) - ANSWER_MARGIN_MS;
  const read = () =>
    pool.exec(target, ['snapshot'], {
      timeoutMs: Math.max(1, deadline - performance.now()),
      maxReplyBytes: maxBytes,
      signal,
    });
  try {
    let reply: Awaited<ReturnType<typeof read>>;
    try {
      reply = await read();
    } catch (error) {
      // A pooled connection the peer dropped since its last call (its sshd restarted) fails the
      // first call on it; a fresh ssh would have connected anew. A snapshot is only read: once more.
      if (!(error instanceof UnreachableError) || error.category !== 'connection lost' || signal.aborted)
        throw error;
      if (deadline - performance.now() < 1) throw error;
      reply = await read();
    }
    if (reply.ok) {
      // The caller's own read bounds the JSON the peer prints: the same bound, on the same text.
      const bytes = Buffer.byteLength(JSON.stringify(reply.value) ?? '');
      if (bytes > maxBytes)
        return { unreachable: 'remote command failed', detail: oversizeDetail(maxBytes, bytes) };
    }
    return { reply };
  } catch (error) {
    if (error instanceof UnreachableError && !signal.aborted)
      return { unreachable: error.category, detail: error.detail };
    return { declined: messageOf(error) };
  }
}
