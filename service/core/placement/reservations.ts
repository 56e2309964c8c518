// Reservation lifetime. An agent's reservation ends only at its TTL: until then the agent counts
// twice (as the reservation and, once it appears, as an active agent), which keeps two placements
// from landing on a host in the gap before the new agent is seen. A job's reservation also ends
// when its job ends (DESIGN §6): the job is in the snapshot at once, and once ended uses nothing.

export interface ReservationLike {
  expires_ms: number;
}

export function isLive(reservation: ReservationLike, now: number): boolean {
  return reservation.expires_ms > now;
}

export function liveReservations<T extends ReservationLike>(reservations: readonly T[], now: number): T[] {
  return reservations.filter((r) => isLive(r, now));
}

/** The live reservations once `ended` (a finished job's) is gone; expired ones are dropped too. */
export function withoutReservations<T extends ReservationLike & { id: string }>(
  reservations: readonly T[],
  ended: ReadonlySet<string>,
  now: number,
): T[] {
  return liveReservations(reservations, now).filter((r) => !ended.has(r.id));
}
