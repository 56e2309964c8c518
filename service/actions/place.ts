// What `dogsled place` does, for every caller: reserve room on the best host for
// reservation_ttl_ms, or queue a FIFO ticket when every host is full (or earlier tickets wait for
// the same hosts) and, with `wait`, take the reservation the service admits it with. Nothing is
// started; the reservation counts against its host's headroom until its TTL. With `--branch`, the
// branch's worktree on the chosen host (here, or a peer's checkout) is made or reused once the
// placement is known.

import { DogsledError } from '../core/common/errors.js';
import { PEER_SNAPSHOT_MAX_BYTES } from '../core/fleet/peer-reads.js';
import type { Reservation } from '../core/placement/host-types.js';
import { findHost } from '../core/placement/placement.js';
import type { Ticket } from '../core/placement/queue-types.js';
import { enabledPeers } from '../hosts/fleet.js';
import { LOCAL_HOST, readReservations } from '../hosts/local-facts.js';
import { peerCall } from '../hosts/peer-verb.js';
import type { Placed } from '../hosts/reserve-room.js';
import { submitWork } from '../queue/submit.js';
import { awaitTicket } from '../queue/ticket-wait.js';
import type { HostIO } from '../state/io.js';
import { PeerReplySchema } from '../state/schemas/peer-schemas.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import type { Deadline } from '../time/deadline.js';
import type { BranchWorktree } from '../worktrees/branch-worktree.js';
import { remoteWorktree } from './remote-worktree.js';
import type { UserHostIO } from './verb-io.js';

export type { Placed as Placement } from '../hosts/reserve-room.js';
export type { BranchWorktree };

export interface PlaceRequest {
  /** A host id or label (`--host`), else null. */
  pin: string | null;
  /** `--branch` (with `--base` and the repository, `--repo` or the caller's directory). */
  branch?: { name: string; base: string | null; repo: string } | null;
  /** Wait for the ticket's admission when every host is full (`--wait`). */
  wait: boolean;
}

export type PlaceWorkOutcome =
  /**
   * `ticket`: the ticket it was admitted from, when it came through the queue; `worktree`: the
   * branch's worktree on the chosen host, with `--branch`.
   */
  | (Placed & { ticket?: string; worktree?: BranchWorktree })
  /** Queued, and not waited for. */
  | { kind: 'queued'; ticket: Ticket }
  /** The deadline or the user ended the wait for the ticket (it stays pending). */
  | { kind: 'still-queued'; ticket: Ticket; why: 'deadline' | 'interrupted' };

/** The user hears of a ticket at once (UserIO.queued) and may interrupt the wait for it (untilStopped). */
export async function placeRequest(
  io: UserHostIO,
  request: PlaceRequest,
  deadline: Deadline,
): Promise<PlaceWorkOutcome> {
  const owner = callerPane(io.env);
  const branch = request.branch ?? null;
  const asked =
    branch === null
      ? null
      : { repo: branch.repo, branch: branch.name, base: branch.base ?? undefined, command: 'place' };
  // What needs no lock is refused before anything is placed; a peer's checkout is checked there.
  const onPeer = request.pin !== null && findHost([LOCAL_HOST], request.pin) === undefined;
  // The worktree layer (and the terminal it opens) loads only for --branch: in the hot bundle it is
  // a file of its own (scripts/build.mjs, COLD), not parsed on every placement.
  const worktrees = asked === null ? null : await import('../worktrees/branch-worktree.js');
  const checked = asked === null || onPeer ? null : await worktrees!.checkBranchRequest(asked, io);
  const withWorktree = async <T extends Placed & { ticket?: string }>(placed: T) => {
    if (asked === null || branch === null || worktrees === null) return placed;
    if (placed.host !== LOCAL_HOST.id) {
      const peer = (await enabledPeers(io)).find((p) => p.id === placed.host);
      if (peer === undefined) throw new DogsledError(`host ${placed.host} left the fleet while placing`);
      const ask = { cwd: branch.repo, branch: branch.name, base: branch.base, command: 'place' } as const;
      return { ...placed, worktree: await remoteWorktree(io, peer, ask, deadline) };
    }
    const terminal = checked?.terminal;
    const worktree = await worktrees.ensureBranchWorktree(asked, {
      ...io,
      ...(terminal ? { terminal } : {}),
      deadline,
    });
    return { ...placed, worktree };
  };
  // A ticket remembers the branch: when the caller does not wait, the service makes its worktree.
  const place =
    branch === null ? {} : { place: { branch: branch.name, base: branch.base, repo: branch.repo } };
  const submission = { request: null, pin: request.pin, owner, waiting: request.wait, ...place };
  // The signal reaches every write: a placement that ran out of time writes nothing afterwards.
  const outcome = await deadline.step('placement', 'routine', (signal) =>
    submitWork({ ...io, signal }, submission, 'place'),
  );
  if (outcome.kind === 'placed') return withWorktree(outcome);
  const { ticket } = outcome;
  io.queued?.(outcome);
  if (!request.wait) return { kind: 'queued', ticket };
  const waited = await awaitTicket(io, ticket.id, deadline, io.untilStopped);
  if (waited.kind === 'gave-up') return { kind: 'still-queued', ticket, why: waited.why };
  const admitted = waited.ticket;
  const reservation = await admittedReservation(io, admitted);
  if (reservation === undefined || admitted.host === null) {
    throw new DogsledError(`ticket ${ticket.id} was admitted, but its reservation has already expired`);
  }
  const label = findHost([LOCAL_HOST], admitted.host)?.label ?? admitted.host;
  return withWorktree({
    kind: 'placed',
    host: admitted.host,
    label,
    reservation,
    ticket: ticket.id,
  } as const);
}

/** The reservation a ticket was admitted with: here, or on the peer that took it (its own list). */
async function admittedReservation(io: HostIO, ticket: Ticket): Promise<Reservation | undefined> {
  if (ticket.host === null || findHost([LOCAL_HOST], ticket.host) !== undefined)
    return (await readReservations(io)).find((r) => r.id === ticket.reservation);
  const peer = (await enabledPeers(io)).find((p) => p.id === ticket.host);
  if (peer === undefined) throw new DogsledError(`host ${ticket.host} left the fleet while placing`);
  const answer = await peerCall(io, peer, ['snapshot'], { maxReplyBytes: PEER_SNAPSHOT_MAX_BYTES });
  const reply = PeerReplySchema.safeParse(answer);
  if (!reply.success) throw new DogsledError(`${peer.label}: host snapshot answered something else`);
  return reply.data.host.reservations.find((r) => r.id === ticket.reservation);
}
