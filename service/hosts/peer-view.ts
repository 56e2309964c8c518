// A peer as status and placement see it, from its cache entry alone: the last snapshot it answered
// with (times moved onto this host's clock through the peer's own `now_ms`, so clock skew between
// hosts does not age or rejuvenate it), whether the last read reached it, its service from its own
// lock, and its headroom refused while it is unreachable or stale. The snapshot's strings are clean
// already (peer-schemas.ts cleans every one as it is parsed); the label is this host's own.

import { BUS_NO_VERBS, BUS_STALE_MS, busUnreachable } from '../core/fleet/bus-rules.js';
import type { PeerEntry } from '../core/fleet/fleet-types.js';
import { peerHeadroom, peerService, retryInMs } from '../core/fleet/peer-reads.js';
import type { Headroom } from '../core/placement/headroom.js';
import { plainLine } from '../core/text/clean.js';
import type { PeerHost } from './fleet.js';
import type { HostView } from './view.js';

const NO_SNAPSHOT: Headroom = {
  free_cores: null,
  measured: null,
  declared: null,
  eligible: false,
  reason: ['no snapshot: this peer has not been read yet'],
  reservations: 0,
  live_agents: 0,
  active_agents: 0,
};

export function peerView(
  peer: PeerHost,
  entry: PeerEntry | undefined,
  now: number,
  busStaleMs: number = BUS_STALE_MS,
): HostView {
  const reply = entry?.reply ?? null;
  // A bus peer is as fresh as its key: nothing reads it, so its entry cannot say it went quiet.
  const unreachable =
    peer.via === 'bus' && entry !== undefined
      ? busUnreachable(entry, now, busStaleMs)
      : (entry?.unreachable ?? null);
  const reachable = entry !== undefined && entry.read_ms !== null && unreachable === null;
  // The snapshot's age when the peer answered, by its clock, plus the time since, by ours.
  const sampleMs =
    reply && entry?.read_ms != null && reply.host.sample_ms !== null
      ? entry.read_ms - Math.max(0, reply.now_ms - reply.host.sample_ms)
      : null;
  const ageMs = sampleMs === null ? null : Math.max(0, now - sampleMs);
  const judged = reply
    ? peerHeadroom(reply.host.headroom, { unreachable, ageMs })
    : { ...NO_SNAPSHOT, reason: unreachable ? [`unreachable: ${unreachable}`] : NO_SNAPSHOT.reason };
  // Work reaches a bus peer through its verbs on the bus: one that does not answer them takes none.
  const headroom =
    peer.via === 'bus' && reply !== null && reply.bus?.rpc !== true
      ? { ...judged, eligible: false, reason: [...judged.reason, BUS_NO_VERBS] }
      : judged;
  return {
    id: peer.id,
    label: plainLine(peer.label),
    hostname: reply?.host.hostname ?? null,
    local: false,
    service: reachable && reply ? peerService(reply.host.service, ageMs) : 'unknown',
    reachable,
    unreachable,
    sample_ms: sampleMs,
    age_ms: ageMs,
    interval_ms: reply?.host.interval_ms ?? null,
    probe: reply?.host.probe ?? null,
    headroom,
    reservations: reply?.host.reservations ?? [],
    errors: reply?.host.errors ?? [],
    retry_ms: retryInMs(entry, now),
    facts: reply?.host.facts ?? null,
  };
}
