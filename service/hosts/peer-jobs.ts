// The jobs of every enabled peer for `ps`: read through the peer cache (refreshed when due, as
// status does), never by asking each peer for its records. A config that does not load hides no
// local job: the caller lists those first and shows this failure as a warning.

import type { JobSummary } from '../core/jobs/job-types.js';
import type { HostIO } from '../state/io.js';
import { enabledPeers } from './fleet.js';
import { refreshPeers } from './peer-cache.js';
import { peerReadTransport } from './peer-read-client.js';
import { peerBudgetMs } from './peers.js';

export async function readPeerJobs(io: HostIO): Promise<Array<{ id: string; jobs: JobSummary[] }>> {
  const peers = await enabledPeers(io);
  if (peers.length === 0) return [];
  const entries = await refreshPeers(
    { ...io, transport: peerReadTransport(io), remoteCommand: io.config.remote_command },
    peers,
    { budgetMs: peerBudgetMs(io.env) },
  );
  return peers.map((peer) => ({ id: peer.id, jobs: entries.get(peer.id)?.reply?.jobs ?? [] }));
}
