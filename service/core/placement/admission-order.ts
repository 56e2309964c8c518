// FIFO admission of queued tickets (spec, "Items and closing"). The order holds per host: a ticket
// may use a host only when no earlier waiting ticket could take that host, so it waits only behind
// earlier tickets that share one of its hosts, and a full host never holds back a ticket pinned
// elsewhere. Each admission counts as one more reservation on its host before the next ticket is
// judged, exactly as the host's own recheck will see it.
//
// A peer comes judged (its own headroom from its snapshot, refused when stale or unreachable here):
// its reservation load is its own policy's, so it takes one admission per pass, and its own recheck
// decides the next one.
//
// Cost: one pass is O(tickets x hosts) at worst. Once every host is held by a waiting ticket, the
// rest of the queue is only checked for pins that name no host (one set lookup each), so a long
// queue behind a full fleet costs one ticket's look per pass plus that scan.

import { type Headroom, type HostFacts, headroomOf, type Policy } from './headroom.js';
import { compareCandidates, findHost, type PlacementCandidate } from './placement.js';

/** This host by its facts, judged under this policy. */
export interface FactsHost {
  id: string;
  label: string;
  facts: HostFacts;
}

/** A host admission may use: this one by its facts, or a peer as it judged itself. */
export type AdmissionHost = FactsHost | { id: string; label: string; judged: Headroom };

const BOOKED_PEER = 'admitting here already in this pass: its own recheck decides the next one';

export interface QueuedTicket {
  id: string;
  /** A host id or label; null lets any host take it. */
  pin: string | null;
}

export type AdmissionStep<T extends QueuedTicket> =
  | { kind: 'admit'; ticket: T; host: PlacementCandidate }
  | { kind: 'fail'; ticket: T; reason: string };

/**
 * The admissions to make now, in order. `tickets` are the pending ones in FIFO order (oldest first).
 * A ticket pinned to a host nobody knows fails: no host will ever take it. `closed` names, per
 * ticket, hosts it may not go to (a child's budget spent there): it waits only for the others.
 */
export function planAdmissions<T extends QueuedTicket>(
  tickets: readonly T[],
  hosts: readonly AdmissionHost[],
  policy: Policy,
  now: number,
  closed: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): AdmissionStep<T>[] {
  const steps: AdmissionStep<T>[] = [];
  const booked = new Map<string, number>();
  const held = new Set<string>();
  const candidate = (host: AdmissionHost): PlacementCandidate => {
    const extra = booked.get(host.id) ?? 0;
    if ('judged' in host) {
      const { judged } = host;
      const headroom = extra === 0 ? judged : { ...judged, eligible: false, reason: [BOOKED_PEER] };
      return { id: host.id, label: host.label, headroom };
    }
    const facts = { ...host.facts, reservations: host.facts.reservations + extra };
    return { id: host.id, label: host.label, headroom: headroomOf(facts, policy, now) };
  };
  const known = new Set(hosts.flatMap((host) => [host.id, host.label]));
  for (const ticket of tickets) {
    if (ticket.pin !== null && !known.has(ticket.pin)) {
      // No host will ever take it, so nothing may hold it back: it fails even behind a full fleet.
      steps.push({ kind: 'fail', ticket, reason: `unknown host "${ticket.pin}"` });
      continue;
    }
    if (held.size === hosts.length) continue;
    const pinned = ticket.pin === null ? undefined : findHost(hosts, ticket.pin);
    const shut = closed.get(ticket.id);
    const pool: readonly AdmissionHost[] = (pinned === undefined ? hosts : [pinned]).filter(
      (host) => shut === undefined || !shut.has(host.id),
    );
    const open = pool
      .filter((host) => !held.has(host.id))
      .map(candidate)
      .filter((c) => c.headroom.eligible)
      .sort(compareCandidates);
    const best = open[0];
    if (best === undefined) {
      // It waits, and from here on it holds every host it could take.
      for (const host of pool) held.add(host.id);
      continue;
    }
    steps.push({ kind: 'admit', ticket, host: best });
    booked.set(best.id, (booked.get(best.id) ?? 0) + 1);
  }
  return steps;
}

/**
 * How many of the pending tickets (FIFO order) a new request for `pool`'s hosts must wait behind:
 * those that could take one of those hosts. New work never overtakes them; a ticket pinned to a
 * host nobody knows holds nothing (admission fails it).
 */
export function ticketsAhead(
  pending: readonly QueuedTicket[],
  hosts: ReadonlyArray<{ id: string; label: string }>,
  pool: ReadonlySet<string>,
): number {
  let count = 0;
  for (const ticket of pending) {
    const candidates = ticket.pin === null ? hosts : [findHost(hosts, ticket.pin)];
    if (candidates.some((host) => host !== undefined && pool.has(host.id))) count++;
  }
  return count;
}
