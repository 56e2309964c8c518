// What `status` shows, read from files alone (never a probe): every host's view, and this host's
// open items and unsettled tickets. The host views alone (`status --line`) skip items.json and
// queue.json and their schemas, which load on demand, so the tab row starts fast. Peers come from
// the shared peer cache (peers.ts): this host first, then the peers in the fleet's order.

import { readLocalHost } from '../hosts/local-facts.js';
import { readPeerHosts } from '../hosts/peers.js';
import type { HostView, StatusReport } from '../hosts/view.js';
import type { HostIO } from '../state/io.js';

export type { AgentPane } from '../core/agents/agent-pane-types.js';
export type { SweepPass } from '../core/cleanup/sweep-types.js';
export type { HostView, StatusReport };

export async function readStatus(io: HostIO): Promise<StatusReport> {
  const [hosts, work, sweep] = await Promise.all([readHosts(io), readOpenWork(io), readSweep(io)]);
  return { version: 1, now_ms: io.now(), hosts, ...work, sweep };
}

/** The latest sweep pass; a sweep.json that cannot be read shows as no pass (the service reports it). */
async function readSweep(io: HostIO): Promise<StatusReport['sweep']> {
  const { readLatestSweep } = await import('../sweep/sweep-files.js');
  return (await readLatestSweep(io).catch(() => undefined)) ?? null;
}

export async function readHosts(io: HostIO): Promise<HostView[]> {
  const [local, peers] = await Promise.all([readLocalHost(io), readPeerHosts(io)]);
  return [local, ...peers.views];
}

/** Open items and unsettled tickets (FIFO); loaded on demand so `--line` never parses their schemas. */
async function readOpenWork(io: HostIO): Promise<Pick<StatusReport, 'items' | 'queue'>> {
  const [{ readItems, readQueue }, { isSettled }] = await Promise.all([
    import('../state/records/queue-items.js'),
    import('../core/placement/tickets.js'),
  ]);
  const [items, queue] = await Promise.all([readItems(io), readQueue(io)]);
  return {
    items: items.items.filter((item) => item.closed_ms === null),
    queue: queue.tickets.filter((ticket) => !isSettled(ticket)).sort((a, b) => a.created_ms - b.created_ms),
  };
}
