// The service's peer reads: while this host owns open items or unsettled tickets (spec, "Host
// service and status"), it keeps the peer cache fresh through the service's pooled ssh2 connection
// per peer (serve.ts owns it; admission's calls share it), each read going through the same locked
// cache as every command, so it adds no read a command would not have made. `dogsled retry` clears
// a peer's backoff in the cache; the pool follows it.
// After each read, what waits for this host in a reachable peer's outbox is taken (outbox-pull.ts);
// a host met on the fleet bus posts it to the outbox stream instead (bus-outbox.ts).
// When the service stops, its calls there end at once (the stop signal reaches each one): a frozen
// peer never holds the shutdown, and a call cut short is not the peer's failure.

import { testKnob } from '../../core/common/test-knobs.js';
import { PEER_READ_EVERY_MS } from '../../core/fleet/peer-reads.js';
import { awaitsPeer } from '../../core/inbox/outbox-rule.js';
import { ROUTINE_CAP_MS } from '../../core/placement/budget.js';
import { isSettled } from '../../core/placement/tickets.js';
import { enabledPeers } from '../../hosts/fleet.js';
import { LOCAL_HOST } from '../../hosts/local-facts.js';
import { peerTarget, readPeerEntry, refreshPeers } from '../../hosts/peer-cache.js';
import { awaitedPeers } from '../../inbox/outbox.js';
import { readItems, readQueue } from '../../state/records/queue-items.js';
import type { SshPool } from '../../transport/pool.js';
import type { WorkerIO } from '../worker-io.js';
import { OutboxPull } from './outbox-pull.js';

/**
 * The lane's pace: reads are due every 10 s at most, and a pass that finds them fresh costs two file
 * reads. The PEERS_PACE_MS knob shortens it so a test sees an outbox record
 * taken within a second; the reads keep their spacing, which the peer cache enforces. It only ever
 * shortens: a larger value (past a timer's reach, say) keeps the pace.
 */
export function peersLanePaceMs(io: Pick<WorkerIO, 'env'>, workPaceMs: number): number {
  const pace = Math.max(workPaceMs, PEER_READ_EVERY_MS);
  return Math.min(testKnob(io.env, 'PEERS_PACE_MS') ?? pace, pace);
}

export class PeersLane {
  private readonly outbox: OutboxPull;
  private readonly io: WorkerIO;

  constructor(
    io: WorkerIO,
    private readonly pool: SshPool,
    /** The service's stop: it ends the lane's calls to peers and its lock waits, and writes nothing after. */
    signal?: AbortSignal,
  ) {
    this.io = signal ? { ...io, signal } : io;
    this.outbox = new OutboxPull(this.io, pool);
  }

  /**
   * Whether this host owns work that may need a peer: an open item, a ticket not yet settled, a
   * child on a peer whose branch has not been seen landed there (its TO LAND row follows the peer),
   * or a sender here that messaged a child on a peer lately.
   */
  private async ownsWork(): Promise<boolean> {
    const [items, queue] = await Promise.all([readItems(this.io), readQueue(this.io)]);
    const waiting = (item: (typeof items.items)[number]) =>
      item.closed_ms === null || (item.host !== LOCAL_HOST.id && item.kind === 'agent' && awaitsPeer(item));
    if (items.items.some(waiting) || queue.tickets.some((t) => !isSettled(t))) return true;
    // A sender here awaits a child's `finished` from a peer it messaged.
    return (await awaitedPeers(this.io).catch(() => [])).length > 0;
  }

  async pass(): Promise<number> {
    if (!(await this.ownsWork())) return 0;
    const peers = await enabledPeers(this.io);
    const remoteCommand = this.io.config.remote_command;
    for (const peer of peers) {
      const entry = await readPeerEntry(this.io, peer.id).catch(() => undefined);
      const target = peerTarget(peer, remoteCommand);
      // Someone read it since the pool's last failure: the peer is back, so is the pool.
      if (entry?.failures === 0 && this.pool.state(target).retryAtMs !== null) this.pool.retry(peer.target);
    }
    const entries = await refreshPeers({ ...this.io, transport: this.pool, remoteCommand }, peers, {
      budgetMs: ROUTINE_CAP_MS,
    });
    if (this.io.signal?.aborted) return 0;
    const reachable = peers.filter((peer) => entries.get(peer.id)?.unreachable === null);
    // A host met on the bus posts its records to the outbox stream, which the bus lane takes.
    await this.outbox.pass(reachable.filter((peer) => peer.via !== 'bus'));
    return reachable.length;
  }
}
