// `place`: rank every host (this one and each enabled peer, from the shared peer cache), then let
// the chosen host recheck under its own placements lock before it writes the reservation (a peer
// through its `host reserve` verb). The recheck is what makes 32 concurrent callers book exactly the
// room there is: each sees the reservations of every caller that locked before it. A host that
// refuses on its recheck, or cannot be reached, passes the work to the next ranked host.

import * as z from 'zod/mini';
import { DogsledError } from '../core/common/errors.js';
import { lastingFailure } from '../core/fleet/unreachable.js';
import type { Reservation } from '../core/placement/host-types.js';
import { findHost, planPlacement, type Refusal } from '../core/placement/placement.js';
import { plainLine } from '../core/text/clean.js';
import { newId } from '../state/engine/ids.js';
import { lazySchema } from '../state/engine/lazy-schema.js';
import { updateState } from '../state/engine/store.js';
import type { HostIO, StateIO } from '../state/io.js';
import { EMPTY_PLACEMENTS, PlacementsSchema, ReservationSchema } from '../state/schemas/host-schemas.js';
import type { Transport } from '../transport/types.js';
import { enabledPeers, type PeerHost } from './fleet.js';
import { LOCAL_HOST, readLocalFacts, readLocalHost } from './local-facts.js';
import { reserveHere } from './local-view.js';
import { peerCall } from './peer-verb.js';
import { readPeerHosts } from './peers.js';
import { ending } from './reservation-end.js';

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
  /** How peers are read and asked (default OpenSSH; the service passes its pool). */
  transport?: Transport;
  /** Host ids the work may not go to (a child's budget is spent there): as if they had no room. */
  avoid?: ReadonlySet<string>;
}

export async function placeWork(io: HostIO, request: PlaceRequest): Promise<PlaceOutcome> {
  const options = request.transport ? { transport: request.transport } : {};
  const avoid = request.avoid ?? new Set<string>();
  const peers = await enabledPeers(io);
  let read: readonly PeerHost[] = peers.filter((peer) => !avoid.has(peer.id));
  if (request.pin !== undefined) {
    const pinned = findHost<{ id: string; label: string }>([LOCAL_HOST, ...peers], request.pin);
    if (pinned === undefined) {
      const known = [LOCAL_HOST, ...peers].map((host) => host.id).join(', ');
      throw new DogsledError(`place: unknown host "${request.pin}" (known: ${known})`);
    }
    // A pin reads only the pinned host: a hung peer elsewhere costs it nothing.
    read = read.filter((peer) => peer === pinned);
  }
  const here = !avoid.has(LOCAL_HOST.id);
  if (read.length === 0 && here) {
    // This host alone: reserveLocally judges it under the placements lock, the same view and the
    // same refusal a plan would give, so a plan first would only read every file twice.
    return reserveLocally(io, request.owner);
  }
  if (read.length === 0) return { kind: 'full', refusals: [] };
  const [local, views] = await Promise.all([
    request.pin === undefined && here ? readLocalHost(io) : undefined,
    readPeerHosts(io, { ...options, peers: read }),
  ]);
  const plan = planPlacement(local === undefined ? views.views : [local, ...views.views], request.pin);
  if (plan.kind === 'unknown-host') {
    throw new DogsledError(`place: unknown host "${plan.pin}" (known: ${plan.known.join(', ')})`);
  }
  if (plan.kind === 'full') return plan;
  const refusals: Refusal[] = [];
  for (const candidate of plan.order) {
    const peer = read.find((p) => p.id === candidate.id);
    const outcome =
      peer === undefined ? await reserveLocally(io, request.owner) : await reserveOnPeer(io, peer, request);
    if (outcome.kind === 'placed') return outcome;
    refusals.push(...outcome.refusals);
  }
  return { kind: 'full', refusals };
}

/**
 * Work pinned to `peer` is refused at once while the peer fails in a way that does not pass by
 * itself (it refuses our key, or its host key is not the one on file): a wait would last until its
 * deadline. Reads that peer alone (its cache entry, read again over SSH when due).
 */
export async function refuseLastingFailure(io: HostIO, peer: PeerHost): Promise<void> {
  const { views } = await readPeerHosts(io, { peers: [peer] });
  const why = lastingFailure(views[0]?.unreachable ?? null, peer.target);
  if (why !== undefined) throw new DogsledError(`${plainLine(peer.label)}: ${why}`);
}

/** The peer's own recheck and reservation (`host reserve`); unreachable is a refusal like any. */
export async function reserveOnPeer(
  io: HostIO,
  peer: PeerHost,
  request: Pick<PlaceRequest, 'owner' | 'transport'>,
): Promise<PlaceOutcome> {
  const refused = (reason: string[]): PlaceOutcome => ({
    kind: 'full',
    refusals: [{ id: peer.id, label: peer.label, reason }],
  });
  let value: unknown;
  try {
    value = await peerCall(io, peer, ['reserve', ...(request.owner === null ? [] : [request.owner])], {
      ...(request.transport ? { transport: request.transport } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
    });
  } catch (error) {
    if (!(error instanceof DogsledError)) throw error;
    return refused([error.message.replace(`${peer.label}: `, '')]);
  }
  const reply = ReserveReplySchema.safeParse(value);
  if (!reply.success) return refused(['host reserve: an answer that is not dogsled']);
  if (!reply.data.placed || reply.data.reservation === undefined) return refused(reply.data.reason ?? []);
  return { kind: 'placed', host: peer.id, label: peer.label, reservation: reply.data.reservation };
}

const ReserveReplySchema = lazySchema(() =>
  z.looseObject({
    placed: z.boolean(),
    reservation: z.optional(ReservationSchema),
    reason: z.optional(z.array(z.string())),
  }),
);

/** Recheck and reserve on this host, both under the placements lock. */
export async function reserveLocally(io: HostIO, owner: string | null): Promise<PlaceOutcome> {
  return updateState(io.paths.placements, PlacementsSchema, io, async (current) => {
    const placements = current ?? EMPTY_PLACEMENTS;
    const local = await readLocalFacts(io, placements.reservations);
    const decided = reserveHere(placements, local, io.config, io.now(), { id: newId('r'), owner });
    if ('refusal' in decided) {
      return { result: { kind: 'full', refusals: [decided.refusal] } satisfies PlaceOutcome };
    }
    const { reservation, next } = decided;
    const placed = { kind: 'placed', host: LOCAL_HOST.id, label: LOCAL_HOST.label, reservation } as const;
    return { result: placed satisfies PlaceOutcome, next };
  });
}

/**
 * Ends the reservations `ids` now (their jobs ended), under the placements lock. Returns how many
 * were still live; the file is left untouched when none was. A job's supervisor ends its own
 * through reservation-end.ts (endReservationsNow), without this module's zod.
 */
export async function endReservations(io: StateIO, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return updateState(
    io.paths.placements,
    PlacementsSchema,
    io,
    ending(ids, () => io.now()),
  );
}
