// `place` in its common case, as a glance (local-glance.ts says how): this host the whole fleet, its
// service up, no ticket waiting. It takes the locks the full placement takes, in the same order
// (queue.json, then placements.json: lock.ts), at once where they are free (update-now.ts), reads queue.json and host.json by hand and
// placements.json through the store with a check equal to its schema (state/checks), decides with
// the rule reserve-room.ts decides with (local-view.ts, reserveHere) and writes the same record.
// The quick attempt (glanceReserveNow) and the waiting one (glanceReserveWaiting) are two functions
// so that only a wait runs under the deadline's step (place-glance.ts), and the wait's code is a
// file of its own (reserve-waiting.ts) that a placement which never waits does not load.
// undefined, with nothing written, when the full path must answer: a peer, a ticket that is not
// settled (FIFO: it may be ahead), no room (the full path queues a ticket), a file in doubt. (A
// damaged placements.json is quarantined and recovered by the store on the way, exactly as the full
// path's first step would: the check is equal to the schema.)

import type { Placements } from '../core/placement/host-types.js';
import { isSettled } from '../core/placement/tickets.js';
import { PlacementsCheck } from '../state/checks/placements-check.js';
import { newId } from '../state/engine/ids.js';
import { lockNow, updateNow } from '../state/engine/update-now.js';
import type { HostIO } from '../state/io.js';
import { backupOf, STATE_FILE_MODE } from '../state/paths.js';
import { glanceTickets } from '../state/records/work-glance.js';
import { glanceAlone, glanceLocalFacts } from './local-glance.js';
import { LOCAL_HOST, reserveHere } from './local-view.js';
import type { Placed } from './reserve-room.js';

const NO_PLACEMENTS: Placements = { version: 1, reservations: [] };

/** What the quick attempt answers when a lock is held or a write was undone: the full wait's turn. */
export const WAIT_FOR_LOCKS = Symbol('wait for the locks');

/** The quick attempt, then, where it cannot answer, the waiting one (under the caller's signal). */
export async function glanceReserve(io: HostIO, owner: string | null): Promise<Placed | undefined> {
  const now = await glanceReserveNow(io, owner);
  return now === WAIT_FOR_LOCKS ? glanceReserveWaiting(io, owner) : now;
}

/**
 * The reservation where no one holds either lock (the common case): both taken at once, without
 * loading the waiting lock and the store (update-now.ts); the written record is the same, synced as
 * always. It never waits and every read is synchronous, so it needs no deadline: WAIT_FOR_LOCKS
 * when glanceReserveWaiting must take the locks the full way.
 */
export async function glanceReserveNow(
  io: HostIO,
  owner: string | null,
): Promise<Placed | undefined | typeof WAIT_FOR_LOCKS> {
  if (!(await glanceAlone(io))) return undefined;
  const queue = lockNow(io.paths.queue);
  if (queue === undefined) return WAIT_FOR_LOCKS;
  try {
    if (!settled(io)) return undefined;
    const file = io.paths.placements;
    const options = { mode: STATE_FILE_MODE, durable: true, backup: backupOf(file) };
    const done = updateNow(file, PlacementsCheck, options, (current) => reserve(io, owner, current));
    return done === undefined ? WAIT_FOR_LOCKS : done.result;
  } finally {
    queue.release();
  }
}

/**
 * The same reservation under lock.ts's waiting locks and the store, bounded by `io.signal`: from a
 * file of its own (reserve-waiting.ts), loaded only by a placement that meets a held lock.
 */
export async function glanceReserveWaiting(io: HostIO, owner: string | null): Promise<Placed | undefined> {
  const { reserveWaiting } = await import('./reserve-waiting.js');
  return reserveWaiting(
    io,
    () => settled(io),
    (current) => reserve(io, owner, current),
  );
}

/** No ticket waiting (FIFO: one that is not settled may be ahead). */
function settled(io: HostIO): boolean {
  const tickets = glanceTickets(io);
  return tickets?.every(isSettled) === true;
}

function reserve(
  io: HostIO,
  owner: string | null,
  current: Placements | undefined,
): { result: Placed | undefined; next?: Placements } {
  const placements = current ?? NO_PLACEMENTS;
  const local = glanceLocalFacts(io, placements.reservations);
  if (local === undefined) return { result: undefined };
  const decided = reserveHere(placements, local, io.config, io.now(), { id: newId('r'), owner });
  if ('refusal' in decided) return { result: undefined };
  const { reservation, next } = decided;
  const placed: Placed = { kind: 'placed', host: LOCAL_HOST.id, label: LOCAL_HOST.label, reservation };
  return { result: placed, next };
}
