// This host's facts, read from its files alone and by one reader for every caller (status, place,
// submit, the service's admission): host.json from the service, the service lock, and
// placements.json. Reads never take a lock; writers replace files atomically, so a reader sees one
// whole version or the previous one. A caller that holds the placements lock passes the
// reservations it read under it.

import type { HostSnapshot, Placements, Reservation } from '../core/placement/host-types.js';
import { HostSnapshotCheck } from '../state/checks/host-snapshot-check.js';
import { PlacementsCheck } from '../state/checks/placements-check.js';
import { handFirst } from '../state/engine/record-check.js';
import { readState } from '../state/engine/store.js';
import type { HostIO, StateIO } from '../state/io.js';
import { readServiceState } from '../state/records/service-lock.js';
import { HostSnapshotSchema, PlacementsSchema } from '../state/schemas/host-schemas.js';
import { type LocalFacts, localView } from './local-view.js';
import type { HostView } from './view.js';

export { hostFacts, LOCAL_HOST, type LocalFacts, localView } from './local-view.js';

// Read by their hand checks, the schemas built only for a file they refuse (which the schema then
// judges, quarantines and words as ever): with a service running, host.json is there, and building
// HostSnapshotSchema's hundreds of nodes to check its 2 KB was some 13 M instructions of every warm
// `status` (5-8 ms), the whole of what a service here added to it.
const HostSnapshotFirst = handFirst<HostSnapshot>(HostSnapshotCheck, HostSnapshotSchema);
const PlacementsFirst = handFirst<Placements>(PlacementsCheck, PlacementsSchema);

export async function readReservations(io: StateIO): Promise<Reservation[]> {
  const placements = await readState(io.paths.placements, PlacementsFirst, io);
  return placements?.reservations ?? [];
}

/** The one reader of this host's facts; `reservations` when the caller read them under their lock. */
export async function readLocalFacts(
  io: StateIO,
  reservations?: readonly Reservation[],
): Promise<LocalFacts> {
  const [snapshot, service, onFile] = await Promise.all([
    readState(io.paths.host, HostSnapshotFirst, io),
    readServiceState(io.paths),
    reservations ?? readReservations(io),
  ]);
  return { snapshot: snapshot ?? null, service: service.state, reservations: onFile };
}

export async function readLocalHost(io: HostIO): Promise<HostView> {
  return localView(await readLocalFacts(io), io.config, io.now());
}
