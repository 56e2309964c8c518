// The lean `status --json` (cli/hot/status-json-lean.ts): the whole report from this host's files
// checked by hand in every field (hosts/local-records-glance.ts, state/records/work-glance.ts), and
// every peer of config.toml's list from a fresh cache entry (hosts/peer-glance.ts) or a read made as
// the full path's early read makes it. undefined sends the caller to readStatus (status.ts), which
// answers every other case.

import type { PeerEntry } from '../core/fleet/fleet-types.js';
import { peerBudgetMs } from '../core/fleet/peer-reads.js';
import { isSettled } from '../core/placement/tickets.js';
import type { PeerHost } from '../hosts/fleet.js';
import { glanceListedPeers } from '../hosts/local-glance.js';
import { glanceLocalRecords } from '../hosts/local-records-glance.js';
import { localView } from '../hosts/local-view.js';
import { glancePeerEntries } from '../hosts/peer-glance.js';
import { startDueReads } from '../hosts/peer-prefetch.js';
import { peerView } from '../hosts/peer-view.js';
import type { StatusReport } from '../hosts/view.js';
import { SweepPassCheck } from '../state/checks/sweep-pass-check.js';
import { glanceRecord } from '../state/engine/glance-file.js';
import type { HostIO } from '../state/io.js';
import { glanceWorkRecords } from '../state/records/work-glance.js';

/**
 * readStatus's report when every file it reads is plain and every peer's cache entry fresh or
 * certainly due a read, which is made here as the full path's early read makes it (peer-prefetch.ts,
 * through the service's pool when it runs here); undefined when the full path must answer: the
 * fleet from Herdr or the bus, a file in doubt, a service lock it cannot judge, a peer's lock held,
 * a read left to the reader. The reads start once every entry has been glanced (an entry in doubt
 * starts none), before this host's files are, so ssh connects meanwhile; an answer left to the full
 * path after they started waits for them first, and the full path finds their entries fresh.
 */
export async function glanceStatus(io: HostIO): Promise<StatusReport | undefined> {
  const peers = await glanceListedPeers(io);
  if (peers === undefined) return undefined;
  const now = io.now();
  const entries = glancePeerEntries(io, peers, now);
  if (entries === undefined) return undefined;
  const reads = entries.due.length === 0 ? undefined : startReads(io, entries.due);
  if (reads === null) return undefined;
  const local = glanceLocalRecords(io);
  const work = local === undefined ? undefined : glanceWorkRecords(io);
  const sweep = work === undefined ? undefined : glanceRecord(io.paths.sweep, SweepPassCheck);
  const read = reads === undefined ? entries.fresh : await readsIn(reads, entries.due, entries.fresh);
  if (read === undefined || local === undefined || work === undefined || sweep === undefined)
    return undefined;
  // As readStatus: this host viewed when read, the peers and the report once the reads are in.
  const after = reads === undefined ? now : io.now();
  return {
    version: 1,
    now_ms: after,
    hosts: [
      localView(local, io.config, now),
      ...peers.map((peer) => peerView(peer, read.get(peer.id), after)),
    ],
    items: work.items.filter((item) => item.closed_ms === null),
    queue: work.tickets.filter((ticket) => !isSettled(ticket)).sort((a, b) => a.created_ms - b.created_ms),
    sweep: sweep.found ? sweep.value : null,
  };
}

type Reads = Map<string, Promise<PeerEntry | undefined>>;

/** The reads of the `due` peers started, or null when they are not all certainly due (none started). */
function startReads(io: HostIO, due: readonly PeerHost[]): Reads | null {
  const remoteCommand = io.config.remote_command;
  return startDueReads({ ...io, remoteCommand }, due, peerBudgetMs(io.env)) ?? null;
}

/** `fresh` with every `due` peer read into it, or undefined when any read was left to the reader. */
async function readsIn(
  reads: Reads,
  due: readonly PeerHost[],
  fresh: ReadonlyMap<string, PeerEntry>,
): Promise<Map<string, PeerEntry> | undefined> {
  const settled = await Promise.all([...reads.values()].map((read) => read.catch(() => undefined)));
  if (reads.size < due.length || settled.some((entry) => entry === undefined)) return undefined;
  const read = new Map(fresh);
  for (const [i, id] of [...reads.keys()].entries()) read.set(id, settled[i] as PeerEntry);
  return read;
}
