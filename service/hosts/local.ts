// Reads this host's view from its files alone: host.json from the service, the service lock, and
// placements.json. Reads never take a lock; writers replace files atomically, so a reader sees
// one whole version or the previous one.

import { hostname } from 'node:os';
import { headroomOf, type Policy } from '../core/headroom.js';
import { liveReservations } from '../core/reservations.js';
import type { HostIO, StateIO } from '../state/io.js';
import {
  type HostSnapshot,
  HostSnapshotSchema,
  PlacementsSchema,
  type Reservation,
} from '../state/schemas.js';
import { readServiceState } from '../state/service-lock.js';
import { readState } from '../state/store.js';
import { type HostView, measureOf } from './view.js';

/** The local host's id and label; peers are known by their Herdr machine ids. */
export const LOCAL_HOST = { id: 'local', label: 'local' } as const;

export async function readSnapshot(io: StateIO): Promise<HostSnapshot | undefined> {
  return readState(io.paths.host, HostSnapshotSchema, io);
}

export async function readReservations(io: StateIO): Promise<Reservation[]> {
  const placements = await readState(io.paths.placements, PlacementsSchema, io);
  return placements?.reservations ?? [];
}

export async function readLocalHost(io: HostIO): Promise<HostView> {
  const [snapshot, service, reservations] = await Promise.all([
    readSnapshot(io),
    readServiceState(io.paths),
    readReservations(io),
  ]);
  return localView(snapshot ?? null, service.state, reservations, io.config, io.now());
}

/** Pure assembly, shared with `place`, which recomputes the same view under the placements lock. */
export function localView(
  snapshot: HostSnapshot | null,
  service: 'up' | 'down',
  allReservations: readonly Reservation[],
  policy: Policy,
  now: number,
): HostView {
  const reservations = liveReservations(allReservations, now);
  const headroom = headroomOf(
    {
      id: LOCAL_HOST.id,
      service,
      measure: snapshot ? measureOf(snapshot) : null,
      reservations: reservations.length,
    },
    policy,
    now,
  );
  return {
    ...LOCAL_HOST,
    hostname: snapshot?.host.hostname ?? hostname(),
    local: true,
    service,
    reachable: true,
    sample_ms: snapshot?.sample_ms ?? null,
    age_ms: snapshot ? Math.max(0, now - snapshot.sample_ms) : null,
    interval_ms: snapshot?.liveness.interval_ms ?? null,
    probe: snapshot?.probe ?? null,
    headroom,
    reservations,
    errors: snapshot?.errors ?? [],
    retry_ms: null,
  };
}
