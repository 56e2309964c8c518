// Reservation lifetime. A reservation ends only at its TTL: until then the agent it stands for
// counts twice (as the reservation and, once it appears, as an active agent), which keeps two
// placements from landing on a host in the gap before the new agent is seen.

export interface ReservationLike {
  expires_ms: number;
}

export function isLive(reservation: ReservationLike, now: number): boolean {
  return reservation.expires_ms > now;
}

export function liveReservations<T extends ReservationLike>(reservations: readonly T[], now: number): T[] {
  return reservations.filter((r) => isLive(r, now));
}
