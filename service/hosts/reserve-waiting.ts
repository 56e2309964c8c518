// The lean `place`'s wait (reserve-glance.ts, glanceReserveWaiting): its reservation under lock.ts's
// waiting locks and the store, for a placement whose quick attempt met a held lock. A module of its
// own, built as a cold file beside the hot bundles (dist/hot/reserve-waiting.cjs, scripts/build.mjs):
// the waiting lock, proper-lockfile, graceful-fs and the store were two fifths of the lean place
// bundle, read, hashed and deserialised on every placement that never waits. The rules it reserves
// by come from its caller as functions, so nothing with module state crosses the file's boundary.

import type { Placements } from '../core/placement/host-types.js';
import { PlacementsCheck } from '../state/checks/placements-check.js';
import { withLock } from '../state/engine/lock.js';
import { updateState } from '../state/engine/store.js';
import type { HostIO } from '../state/io.js';
import type { Placed } from './reserve-room.js';

/** Under queue.json's lock, then placements.json's through the store, bounded by `io.signal`. */
export async function reserveWaiting(
  io: HostIO,
  settled: () => boolean,
  reserve: (current: Placements | undefined) => { result: Placed | undefined; next?: Placements },
): Promise<Placed | undefined> {
  return withLock(
    io.paths.queue,
    async () => (settled() ? updateState(io.paths.placements, PlacementsCheck, io, reserve) : undefined),
    { signal: io.signal },
  );
}
