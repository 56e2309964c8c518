// This host's facts, read from its files alone and by one reader for every caller (status, place,
// submit, the service's admission): host.json from the service, the service lock, and
// placements.json. Reads never take a lock; writers replace files atomically, so a reader sees one
// whole version or the previous one. A caller that holds the placements lock passes the
// reservations it read under it.

import { hostname } from 'node:os';
import { type HostFacts, headroomOf, measureOf, type Policy } from '../core/placement/headroom.js';
import type { HostSnapshot, Reservation } from '../core/placement/host-types.js';
import { liveReservations } from '../core/placement/reservations.js';
import { readState } from '../state/engine/store.js';
import type { HostIO, StateIO } from '../state/io.js';
import { readServiceState } from '../state/records/service-lock.js';
import { HostSnapshotSchema, PlacementsSchema } from '../state/schemas/host-schemas.js';
import type { HostView } from './view.js';

/** The local host's id and label; peers are known by their Herdr machine ids. */
export const LOCAL_HOST = { id: 'local', label: 'local' } as const;

/** What this host's files say: its latest snapshot, whether its service runs, its reservations. */
export interface LocalFacts {
  snapshot: HostSnapshot | null;
  service: 'up' | 'down';
  /** Every reservation on file, expired ones included (the rules count the live ones). */
  reservations: readonly Reservation[];
}

export async function readReservations(io: StateIO): Promise<Reservation[]> {
  const placements = await readState(io.paths.placements, PlacementsSchema, io);
  return placements?.reservations ?? [];
}

/** The one reader of this host's facts; `reservations` when the caller read them under their lock. */
export async function readLocalFacts(
  io: StateIO,
  reservations?: readonly Reservation[],
): Promise<LocalFacts> {
  const [snapshot, service, onFile] = await Promise.all([
    readState(io.paths.host, HostSnapshotSchema, io),
    readServiceState(io.paths),
    reservations ?? readReservations(io),
  ]);
  return { snapshot: snapshot ?? null, service: service.state, reservations: onFile };
}

/** The facts as the placement rules judge them at `now`. */
export function hostFacts(local: LocalFacts, now: number): HostFacts {
  const { snapshot } = local;
  return {
    id: LOCAL_HOST.id,
    service: local.service,
    measure: snapshot ? measureOf(snapshot.sample_ms, snapshot.probe) : null,
    reservations: liveReservations(local.reservations, now).length,
  };
}

export async function readLocalHost(io: HostIO): Promise<HostView> {
  return localView(await readLocalFacts(io), io.config, io.now());
}

/** The host as status shows it, with its headroom recomputed under `policy` at `now`. */
export function localView(local: LocalFacts, policy: Policy, now: number): HostView {
  const { snapshot, service } = local;
  return {
    ...LOCAL_HOST,
    hostname: snapshot?.host.hostname ?? hostname(),
    local: true,
    service,
    reachable: true,
    unreachable: null,
    sample_ms: snapshot?.sample_ms ?? null,
    age_ms: snapshot ? Math.max(0, now - snapshot.sample_ms) : null,
    interval_ms: snapshot?.liveness.interval_ms ?? null,
    probe: snapshot?.probe ?? null,
    headroom: headroomOf(hostFacts(local, now), policy, now),
    reservations: liveReservations(local.reservations, now),
    errors: snapshot?.errors ?? [],
    retry_ms: null,
    facts: snapshot?.facts ?? null,
  };
}
