// This host's records whole, for the lean `status --json` alone (actions/status-json-glance.ts):
// host.json and placements.json checked by hand in every field. A module of its own, since building
// those two checks is a cost every other glance of this host (local-glance.ts: the hooks' context,
// place, ps, status --line) would pay at its load for nothing.

import { statSync } from 'node:fs';
import { HostSnapshotCheck } from '../state/checks/host-snapshot-check.js';
import { PlacementsCheck } from '../state/checks/placements-check.js';
import { glanceRecord } from '../state/engine/glance-file.js';
import type { StateIO } from '../state/io.js';
import { serviceUp } from './local-glance.js';
import type { LocalFacts } from './local-view.js';

/**
 * This host's facts as readLocalFacts gives them, for the forms that print them whole (`status
 * --json`): host.json and placements.json checked by hand in every field (HostSnapshotCheck,
 * PlacementsCheck: the data the full reader's checks give back), the service up (its lock's owner
 * alive) or down (no lock at all); undefined for anything else (a lock whose owner is gone or
 * unknown, a file in doubt), which readLocalFacts judges and words.
 */
export function glanceLocalRecords(io: StateIO): LocalFacts | undefined {
  const service = serviceState(io);
  if (service === undefined) return undefined;
  const host = glanceRecord(io.paths.host, HostSnapshotCheck);
  const placements = glanceRecord(io.paths.placements, PlacementsCheck);
  if (host === undefined || placements === undefined) return undefined;
  return {
    snapshot: host.found ? host.value : null,
    service,
    reservations: placements.found ? placements.value.reservations : [],
  };
}

/** `down` when there is no service lock (inspectLock's ENOENT), `up` as serviceUp says, else undefined. */
function serviceState(io: StateIO): 'up' | 'down' | undefined {
  const lock = `${io.paths.serviceLock}.lock`;
  try {
    if (statSync(lock, { throwIfNoEntry: false }) === undefined) return 'down';
  } catch {
    return undefined;
  }
  return serviceUp(io) ? 'up' : undefined;
}
