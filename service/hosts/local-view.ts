// This host as status shows it, from facts already read: a module without the state readers (and
// their zod schemas), so the lean `status --line` (local-glance.ts) builds the same view as
// readLocalHost does.

import { type HostFacts, headroomOf, measureOf, type Policy } from '../core/placement/headroom.js';
import type { HostSnapshot, Placements, Reservation } from '../core/placement/host-types.js';
import type { Refusal } from '../core/placement/placement.js';
import { liveReservations } from '../core/placement/reservations.js';
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

/** The host as status shows it, with its headroom recomputed under `policy` at `now`. */
export function localView(local: LocalFacts, policy: Policy, now: number): HostView {
  const { snapshot, service } = local;
  return {
    ...LOCAL_HOST,
    // node:os only without a snapshot: the prompt context's lean hook reads this view on every prompt.
    hostname: snapshot?.host.hostname ?? process.getBuiltinModule('node:os').hostname(),
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

/**
 * A placement on this host, judged from its facts read under the placements lock (with the
 * reservations on file): the reservation and the placements to write, or the refusal when the host
 * has no room. The full `place` (reserve-room.ts) and the lean one (reserve-glance.ts) both decide here.
 */
export function reserveHere(
  placements: Placements,
  local: LocalFacts,
  policy: Policy & { reservation_ttl_ms: number },
  now: number,
  ask: { id: string; owner: string | null },
): { reservation: Reservation; next: Placements } | { refusal: Refusal } {
  const view = localView(local, policy, now);
  if (!view.headroom.eligible)
    return { refusal: { id: view.id, label: view.label, reason: view.headroom.reason } };
  const reservation: Reservation = {
    id: ask.id,
    created_ms: now,
    expires_ms: now + policy.reservation_ttl_ms,
    owner: ask.owner,
  };
  const kept = liveReservations(placements.reservations, now);
  return { reservation, next: { ...placements, reservations: [...kept, reservation] } };
}
