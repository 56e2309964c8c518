// `dogsled retry HOST`: reads a peer again now, whatever its backoff, and caches what it answered,
// so every caller (and the service, whose pool follows the cache) sees the peer back at once.

import { DogsledError } from '../core/common/errors.js';
import { ROUTINE_CAP_MS } from '../core/placement/budget.js';
import { findHost } from '../core/placement/placement.js';
import { readFleet } from '../hosts/fleet.js';
import { refreshPeer } from '../hosts/peer-cache.js';
import { peerView } from '../hosts/peer-view.js';
import type { HostView } from '../hosts/view.js';
import type { HostIO } from '../state/io.js';
import { OpenSshTransport } from '../transport/openssh.js';
import type { Transport } from '../transport/types.js';

export async function retryPeer(io: HostIO, ref: string, transport?: Transport): Promise<HostView> {
  const fleet = await readFleet(io);
  const peer = findHost(fleet.peers, ref);
  if (peer === undefined) {
    const known = fleet.peers.map((p) => p.id).join(', ') || 'none';
    throw new DogsledError(`unknown host "${ref}" (known peers: ${known})`);
  }
  const entry = await refreshPeer(
    {
      ...io,
      transport: transport ?? new OpenSshTransport({ env: io.env }),
      remoteCommand: io.config.remote_command,
    },
    peer,
    { budgetMs: ROUTINE_CAP_MS, force: true },
  );
  return peerView(peer, entry, io.now());
}
