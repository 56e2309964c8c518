// The peer cache's entries as the lean `status --json` glances at them (actions/status-json-glance.ts):
// each read once, synchronously, and checked by hand with PeerEntryCheck, the check the cache's own
// reader passes first (peer-cache.ts), so a fresh entry gives the same data. An entry due a read (or
// missing) is read as a command's early read (peer-prefetch.ts); one in doubt is the full reader's,
// which quarantines and words the file.

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
 * Every peer's entry that is on file, passes its check and is not due a read at `now` (refreshPeer
 * then returns it as it stands), by id, and the peers whose entry is due or missing; undefined when
 * any entry is in doubt (not a regular file, not JSON, refused by its check).
 */
export function glancePeerEntries(
  io: Pick<StateIO, 'paths'>,
  peers: readonly PeerHost[],
  now: number,
): { fresh: Map<string, PeerEntry>; due: PeerHost[] } | undefined {
  const fresh = new Map<string, PeerEntry>();
  const due: PeerHost[] = [];
  for (const peer of peers) {
    const entry = glanceRecord(peerEntryPath(io, peer.id), PeerEntryCheck);
    if (entry === undefined) return undefined;
    if (!entry.found || peerReadDue(entry.value, now)) due.push(peer);
    else fresh.set(peer.id, entry.value);
  }
  return { fresh, due };
}
