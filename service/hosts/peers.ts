// Every enabled peer as status and placement see it: the fleet's list, each peer's cache entry
// refreshed when due (in parallel, within one budget: a command's reads through this host's service's
// pool when it runs, else through OpenSSH; the service's through its pool), then viewed. A caller
// never waits longer than its budget for a peer.

import { testKnob } from '../core/common/test-knobs.js';
import { BUS_STALE_MS } from '../core/fleet/bus-rules.js';
import { peerBudgetMs } from '../core/fleet/peer-reads.js';
import type { HostIO } from '../state/io.js';
import type { Transport } from '../transport/types.js';
import { enabledPeers, type PeerHost } from './fleet.js';
import { readPeerEntry, refreshPeers } from './peer-cache.js';
import { startEarlyReads } from './peer-prefetch.js';
import { peerReadTransport } from './peer-read-client.js';
import { peerView } from './peer-view.js';
import type { HostView } from './view.js';

// The budget lives with the peer-read rules, where the lean `status --json` reads it too.
export { PEER_BUDGET_MS, peerBudgetMs } from '../core/fleet/peer-reads.js';

/** When a bus peer goes stale, or the BUS_STALE_MS knob's (a test's SIGSTOP). */
export function busStaleMs(env: NodeJS.ProcessEnv): number {
  return testKnob(env, 'BUS_STALE_MS') ?? BUS_STALE_MS;
}

export interface PeerHostsOptions {
  /** Default: the service's pool when it runs here (peer-read-client.ts), else one OpenSSH process per read. */
  transport?: Transport;
  budgetMs?: number;
  /** The peers to read (a pinned one); default every enabled peer. */
  peers?: readonly PeerHost[];
}

export interface PeerHosts {
  peers: PeerHost[];
  views: HostView[];
}

export async function readPeerHosts(io: HostIO, options: PeerHostsOptions = {}): Promise<PeerHosts> {
  const peers = options.peers ? [...options.peers] : await enabledPeers(io);
  if (peers.length === 0) return { peers, views: [] };
  const budgetMs = options.budgetMs ?? peerBudgetMs(io.env);
  const remoteCommand = io.config.remote_command;
  // A command's own cold reads start their ssh before the cache's reader gets to them.
  const early =
    options.transport === undefined ? startEarlyReads({ ...io, remoteCommand }, peers, budgetMs) : undefined;
  const transport = options.transport ?? peerReadTransport(io);
  const entries = await refreshPeers({ ...io, transport, remoteCommand }, peers, {
    budgetMs,
    ...(early ? { early } : {}),
  });
  const now = io.now();
  const staleMs = busStaleMs(io.env);
  return { peers, views: peers.map((peer) => peerView(peer, entries.get(peer.id), now, staleMs)) };
}

/** Every enabled peer from its cache entry alone, never read over SSH (the sidebar and the board). */
export async function cachedPeerHosts(io: HostIO): Promise<HostView[]> {
  const peers = await enabledPeers(io);
  const now = io.now();
  const staleMs = busStaleMs(io.env);
  return Promise.all(
    peers.map(async (peer) =>
      peerView(peer, await readPeerEntry(io, peer.id).catch(() => undefined), now, staleMs),
    ),
  );
}
