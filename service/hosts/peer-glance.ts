// The peer cache's entries as the lean `status --json` glances at them (actions/status-glance.ts):
// each read once, synchronously, and checked by hand with PeerEntryCheck, the check the cache's own
// reader passes first (peer-cache.ts), so a fresh entry gives the same data. An entry that is due a
// read, missing or in doubt is the full reader's: it reads the peer, or quarantines and words the file.

import { join } from 'node:path';
import type { PeerEntry } from '../core/fleet/fleet-types.js';
import { peerReadDue } from '../core/fleet/peer-reads.js';
import { PeerEntryCheck } from '../state/checks/peer-entry-check.js';
import { glanceRecord } from '../state/engine/glance-file.js';
import type { StateIO } from '../state/io.js';
import type { PeerHost } from './fleet.js';

/** A peer's cache entry: peers/ID.json (ids are checked as file names where the fleet is read). */
export function peerEntryPath(io: Pick<StateIO, 'paths'>, id: string): string {
  return join(io.paths.peers, `${id}.json`);
}

/**
 * Every peer's entry by id when each is on file, passes its check and is not due a read at `now`
 * (refreshPeer then returns it as it stands); undefined when any one is not.
 */
export function glanceFreshEntries(
  io: Pick<StateIO, 'paths'>,
  peers: readonly PeerHost[],
  now: number,
): Map<string, PeerEntry> | undefined {
  const entries = new Map<string, PeerEntry>();
  for (const peer of peers) {
    const entry = glanceRecord(peerEntryPath(io, peer.id), PeerEntryCheck);
    if (entry === undefined || !entry.found || peerReadDue(entry.value, now)) return undefined;
    entries.set(peer.id, entry.value);
  }
  return entries;
}
