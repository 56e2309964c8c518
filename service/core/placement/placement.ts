// Which host takes new work: the eligible host with the most free cores, then the fewest live
// agents, then the lowest host id. The chosen host rechecks under its own lock before it accepts,
// so ranking here may be optimistic; it is never the last word.

import type { Headroom } from './headroom.js';

export interface PlacementCandidate {
  id: string;
  label: string;
  headroom: Headroom;
}

export interface Refusal {
  id: string;
  label: string;
  reason: string[];
}

export type PlacementPlan =
  | { kind: 'ranked'; order: PlacementCandidate[] }
  | { kind: 'full'; refusals: Refusal[] }
  | { kind: 'unknown-host'; pin: string; known: string[] };

/** Best first; hosts that are not eligible are left out. */
export function rankHosts(candidates: readonly PlacementCandidate[]): PlacementCandidate[] {
  return candidates.filter((c) => c.headroom.eligible).sort(compareCandidates);
}

export function compareCandidates(a: PlacementCandidate, b: PlacementCandidate): number {
  const freeA = a.headroom.free_cores ?? Number.NEGATIVE_INFINITY;
  const freeB = b.headroom.free_cores ?? Number.NEGATIVE_INFINITY;
  if (freeA !== freeB) return freeB - freeA;
  if (a.headroom.live_agents !== b.headroom.live_agents)
    return a.headroom.live_agents - b.headroom.live_agents;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A pin names a host by id or by label; the id wins when both match different hosts. */
export function findHost<T extends { id: string; label: string }>(
  hosts: readonly T[],
  pin: string,
): T | undefined {
  return hosts.find((h) => h.id === pin) ?? hosts.find((h) => h.label === pin);
}

export function planPlacement(candidates: readonly PlacementCandidate[], pin?: string): PlacementPlan {
  let pool: readonly PlacementCandidate[] = candidates;
  if (pin !== undefined) {
    const pinned = findHost(candidates, pin);
    if (!pinned) return { kind: 'unknown-host', pin, known: candidates.map((c) => c.id) };
    pool = [pinned];
  }
  const order = rankHosts(pool);
  if (order.length > 0) return { kind: 'ranked', order };
  return {
    kind: 'full',
    refusals: pool.map((c) => ({ id: c.id, label: c.label, reason: c.headroom.reason })),
  };
}
