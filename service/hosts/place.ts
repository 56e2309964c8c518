// `place`: rank the hosts, then let the chosen host recheck under its placements lock before it
// writes the reservation. The recheck is what makes 32 concurrent callers book exactly the room
// there is: each sees the reservations of every caller that locked before it.

import { planPlacement, type Refusal } from '../core/placement.js';
import { liveReservations, withoutReservations } from '../core/reservations.js';
import { DogsledError } from '../errors.js';
import { newId } from '../state/ids.js';
import type { HostIO, StateIO } from '../state/io.js';
import { EMPTY_PLACEMENTS, PlacementsSchema, type Reservation } from '../state/schemas.js';
import { updateState } from '../state/store.js';
import { LOCAL_HOST, localView, readLocalFacts, readLocalHost } from './local.js';

/** A reservation made on a host: `place` reports it, a submitted job starts under it. */
export interface Placed {
  kind: 'placed';
  host: string;
  label: string;
  reservation: Reservation;
}

export type PlaceOutcome = Placed | { kind: 'full'; refusals: Refusal[] };

export interface PlaceRequest {
  /** Host id or label to pin to. */
  pin?: string | undefined;
  /** The caller's pane, recorded on the reservation. */
  owner: string | null;
}

export async function placeWork(io: HostIO, request: PlaceRequest): Promise<PlaceOutcome> {
  const hosts = [await readLocalHost(io)];
  const plan = planPlacement(hosts, request.pin);
  if (plan.kind === 'unknown-host') {
    throw new DogsledError(`place: unknown host "${plan.pin}" (known: ${plan.known.join(', ')})`);
  }
  if (plan.kind === 'full') return plan;
  // Only the local host exists until peers land; then each ranked host rechecks in turn.
  return reserveLocally(io, request.owner);
}

/** Recheck and reserve on this host, both under the placements lock. */
export async function reserveLocally(io: HostIO, owner: string | null): Promise<PlaceOutcome> {
  return updateState(io.paths.placements, PlacementsSchema, io, async (current) => {
    const placements = current ?? EMPTY_PLACEMENTS;
    const local = await readLocalFacts(io, placements.reservations);
    const now = io.now();
    const view = localView(local, io.config, now);
    if (!view.headroom.eligible) {
      const refusal = { id: view.id, label: view.label, reason: view.headroom.reason };
      return { result: { kind: 'full', refusals: [refusal] } satisfies PlaceOutcome };
    }
    const reservation: Reservation = {
      id: newId('r'),
      created_ms: now,
      expires_ms: now + io.config.reservation_ttl_ms,
      owner,
    };
    const kept = liveReservations(placements.reservations, now);
    return {
      result: {
        kind: 'placed',
        host: LOCAL_HOST.id,
        label: LOCAL_HOST.label,
        reservation,
      } satisfies PlaceOutcome,
      next: { ...placements, reservations: [...kept, reservation] },
    };
  });
}

/**
 * Ends the reservations `ids` now (their jobs ended), under the placements lock. Returns how many
 * were still live; the file is left untouched when none was.
 */
export async function endReservations(io: StateIO, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const ended = new Set(ids);
  return updateState(io.paths.placements, PlacementsSchema, io, (current) => {
    if (current === undefined) return { result: 0 };
    const now = io.now();
    const live = liveReservations(current.reservations, now);
    const kept = withoutReservations(current.reservations, ended, now);
    const removed = live.length - kept.length;
    return removed === 0 ? { result: 0 } : { result: removed, next: { ...current, reservations: kept } };
  });
}
