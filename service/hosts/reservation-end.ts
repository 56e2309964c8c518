// The end of a job's reservations, as its supervisor ends them right before its final record, in a
// module of its own: reserve-room.ts (the placement, its peers and placements.json's zod schema) put
// zod and the fleet's code on every supervisor's start-up. placements.json is judged here by its hand
// check (PlacementsCheck, held to PlacementsSchema by hand-checks.test.ts, as the lean place's
// waiting reservation judges it, reserve-waiting.ts), at once and by the waiting writer alike. The
// store (the waiting writer, with its lock) is imported where it is used, as job-records.ts does:
// its load is a share of a supervisor's start-up, and most ends never wait.

import type { Placements } from '../core/placement/host-types.js';
import { liveReservations, withoutReservations } from '../core/placement/reservations.js';
import { PlacementsCheck } from '../state/checks/placements-check.js';
import { updateNow } from '../state/engine/update-now.js';
import type { StateIO } from '../state/io.js';
import { backupOf, STATE_FILE_MODE } from '../state/paths.js';

/**
 * Ends the reservations `ids` now (their jobs ended): at once where placements.json's lock is free
 * and the file beyond doubt (update-now.ts, with its hand check and backup, synced as always), else
 * through the store, which waits, judges and quarantines. Returns how many were still live; the
 * file is left untouched when none was. For a job's supervisor, whose reservation's end stands
 * right before the final record a waiting `run` answers from.
 */
export async function endReservationsNow(io: StateIO, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const file = io.paths.placements;
  if (!io.signal?.aborted) {
    const options = { mode: STATE_FILE_MODE, durable: true, backup: backupOf(file) };
    const done = updateNow(
      file,
      PlacementsCheck,
      options,
      ending(ids, () => io.now()),
    );
    if (done !== undefined) return done.result;
  }
  const { updateState } = await import('../state/engine/store.js');
  return updateState(
    file,
    PlacementsCheck,
    io,
    ending(ids, () => io.now()),
  );
}

/** The update that ends `ids`: how many were still live, and the file without them (when any was). */
export function ending(ids: readonly string[], clock: () => number) {
  const ended = new Set(ids);
  return (current: Placements | undefined): { result: number; next?: Placements } => {
    if (current === undefined) return { result: 0 };
    const now = clock();
    const live = liveReservations(current.reservations, now);
    const kept = withoutReservations(current.reservations, ended, now);
    const removed = live.length - kept.length;
    return removed === 0 ? { result: 0 } : { result: removed, next: { ...current, reservations: kept } };
  };
}
