// Admission onto peers (spec, "Items and closing" and "Placement"): every enabled peer as admission
// judges it, from the shared peer cache alone (the peers lane reads it; a snapshot older than 30 s
// or an unreachable peer is refused, never used); the peer's own recheck and reservation (`host
// reserve`), which is authoritative; the launch of a ticket admitted there through the same remote
// paths as an immediate placement; and what a launch there left when it threw or was interrupted.

import { readFile, rm } from 'node:fs/promises';
import * as z from 'zod/mini';
import { launchRemoteAgent } from '../../actions/remote-agent.js';
import { launchRemoteJob } from '../../actions/remote-job.js';
import { remoteWorktree } from '../../actions/remote-worktree.js';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import type { AdmissionHost } from '../../core/placement/admission-order.js';
import type { PlacedWorktree, Ticket } from '../../core/placement/queue-types.js';
import type { LaunchEvidence } from '../../core/placement/tickets.js';
import { squeezedLine } from '../../core/text/clean.js';
import type { AdmissionAsk } from '../../host-verbs/admission-verb.js';
import { enabledPeers, type PeerHost } from '../../hosts/fleet.js';
import { readPeerEntry } from '../../hosts/peer-cache.js';
import { peerCall } from '../../hosts/peer-verb.js';
import { peerView } from '../../hosts/peer-view.js';
import { type PlaceOutcome, reserveOnPeer } from '../../hosts/reserve-room.js';
import { lazySchema } from '../../state/engine/lazy-schema.js';
import { readEnvFile, ticketEnvPath } from '../../state/records/env-files.js';
import { launchFiles } from '../../state/records/launch-files.js';
import { appendItem, readItems } from '../../state/records/queue-items.js';
import { ItemSchema } from '../../state/schemas/queue-items-schemas.js';
import type { Deadline } from '../../time/deadline.js';
import { UnreachableError } from '../../transport/types.js';
import type { WorkerIO } from '../worker-io.js';

/**
 * How long the peer's recheck may hold the queue lock: one ssh round trip and a dogsled start
 * there. A peer that takes longer (frozen, a dead link) is a refusal.
 */
const PEER_RESERVE_MS = 10_000;

export interface AdmissionPeers {
  hosts: AdmissionHost[];
  peers: PeerHost[];
}

/**
 * Peers refused at their own recheck, by the read of the snapshot that had them look roomy: such a
 * peer is not asked again until a newer snapshot says something new (one refusal per read, not one
 * ssh per pass).
 */
export class PeerRefusals {
  private readonly byPeer = new Map<string, number | null>();

  async hosts(io: WorkerIO): Promise<AdmissionPeers> {
    const peers = await enabledPeers(io);
    const now = io.now();
    const hosts = await Promise.all(
      peers.map(async (peer): Promise<AdmissionHost> => {
        const entry = await readPeerEntry(io, peer.id).catch(() => undefined);
        const { headroom } = peerView(peer, entry, now);
        const read = entry?.read_ms ?? null;
        const refused = this.byPeer.has(peer.id) && this.byPeer.get(peer.id) === read;
        if (!refused) this.byPeer.delete(peer.id);
        const judged = refused
          ? { ...headroom, eligible: false, reason: ['refused at its own recheck since its last snapshot'] }
          : headroom;
        return { id: peer.id, label: peer.label, judged };
      }),
    );
    return { hosts, peers };
  }

  async refused(io: WorkerIO, peer: string): Promise<void> {
    const entry = await readPeerEntry(io, peer).catch(() => undefined);
    this.byPeer.set(peer, entry?.read_ms ?? null);
  }
}

/** The peer's own recheck and reservation, bounded so a frozen peer cannot hold the queue lock. */
export async function reserveThere(
  io: WorkerIO,
  peer: PeerHost,
  owner: string | null,
): Promise<PlaceOutcome> {
  const timeout = AbortSignal.timeout(PEER_RESERVE_MS);
  const signal = io.signal ? AbortSignal.any([io.signal, timeout]) : timeout;
  try {
    return await reserveOnPeer({ ...io, signal }, peer, { owner });
  } catch (error) {
    // Out of time: a refusal like any, so the pass goes on to the other hosts.
    if (!timeout.aborted || io.signal?.aborted) throw error;
    const reason = [`no answer to host reserve within ${PEER_RESERVE_MS / 1000}s`];
    return { kind: 'full', refusals: [{ id: peer.id, label: peer.label, reason }] };
  }
}

/**
 * Launches an admitted ticket on `peer`: an agent through `host agent` (its task file sent there,
 * then removed here), a job through `host launch` (in its branch's worktree there with `--branch`),
 * and a `place --branch` ticket nobody waits for gets its worktree there. Returns that worktree.
 */
export async function launchThere(
  io: WorkerIO & { signal?: AbortSignal },
  peer: PeerHost,
  ticket: Ticket,
  deadline: Deadline,
): Promise<PlacedWorktree | null> {
  const common = { owner: ticket.owner, ticket: ticket.id, reservation: ticket.reservation };
  if (ticket.agent && ticket.item !== null) {
    const { task } = launchFiles(io.paths, ticket.agent.launch);
    const text = await readFile(task, 'utf8').catch((error: unknown) => {
      throw new DogsledError(
        `the task file of launch ${ticket.agent?.launch}: ${squeezedLine(messageOf(error))}`,
      );
    });
    // The caller's PATH its ticket kept goes with it (agents/peer-caller-env.ts), never this service's.
    const env = await readEnvFile(ticketEnvPath(io.paths, ticket.id));
    const spec = { ...common, itemId: ticket.item, request: ticket.agent, task: text, env: env ?? null };
    await launchRemoteAgent(io, peer, spec, deadline);
    // The task lives on the host that runs the child.
    await rm(task, { force: true }).catch(() => undefined);
    return null;
  }
  if (ticket.request !== null && ticket.job !== null && ticket.item !== null) {
    const { request } = ticket;
    const branch = request.branch ?? null;
    const cwd =
      branch === null
        ? request.cwd
        : (
            await remoteWorktree(
              io,
              peer,
              { cwd: request.cwd, branch, base: request.base ?? null, command: 'run' },
              deadline,
            )
          ).path;
    const spec = {
      ...common,
      jobId: ticket.job,
      itemId: ticket.item,
      request: { ...request, cwd },
      reservation: ticket.reservation ?? '',
    };
    await deadline.step(`launching ${ticket.job} on ${peer.label}`, 'routine', (signal) =>
      launchRemoteJob(io, peer, spec, { signal }),
    );
    return null;
  }
  const place = ticket.place;
  if (!place || ticket.waiting) return null;
  const ask = { cwd: place.repo, branch: place.branch, base: place.base, command: 'place' } as const;
  const made = await remoteWorktree(io, peer, ask, deadline);
  return { path: made.path, branch: made.branch, pane_id: made.pane, workspace: made.workspace };
}

/**
 * What a ticket's launch on a peer left. The owner's item is written only once the peer answered
 * with the started work, so it proves a start; otherwise the peer's own record of the launch decides
 * (`host admission`), and with `end` one that never started is ended there (made ended when not
 * made yet, so a launch still on its way refuses it). A start whose answer never came back gets the
 * owner's item from the peer's. No answer, or an agent that tried and may have typed its line, is
 * unknown: the ticket fails for inspection and nothing is launched again.
 */
export async function evidenceThere(
  io: WorkerIO,
  peer: PeerHost | undefined,
  ticket: Ticket,
  end: string | null,
): Promise<LaunchEvidence> {
  if (!ticket.agent && ticket.request === null) return { kind: 'placement' };
  const host = peer?.label ?? ticket.host ?? '?';
  const item = ticket.item;
  if (item !== null && (await readItems(io)).items.some((entry) => entry.id === item))
    return { kind: 'started' };
  if (peer === undefined || item === null) return { kind: 'unknown', why: `${host} did not say it started` };
  const job =
    ticket.request !== null && ticket.job !== null ? { id: ticket.job, request: ticket.request } : null;
  if (!ticket.agent && job === null) return { kind: 'unknown', why: `${host} did not say it started` };
  const ask: AdmissionAsk = {
    ticket: ticket.id,
    item,
    owner: ticket.owner,
    reservation: ticket.reservation,
    job: ticket.agent ? null : job,
    agent: ticket.agent ?? null,
    end,
  };
  let value: unknown;
  try {
    value = await peerCall(io, peer, ['admission'], { input: JSON.stringify(ask) });
  } catch (error) {
    // The service stopped mid-call: the ticket stays as it is, for the next run to ask again.
    if (stoppedMidCall(io)) throw error;
    return { kind: 'unknown', why: squeezedLine(messageOf(error)) };
  }
  const answer = AnswerSchema.safeParse(value);
  if (!answer.success) return { kind: 'unknown', why: `${host}: host admission answered something else` };
  const { state, reason } = answer.data;
  if (state === 'not-started') return { kind: 'not-started', reason };
  if (state === 'pending') return { kind: 'unknown', why: `${host}: ${reason ?? 'not started yet'}` };
  // Started, its answer lost: the owner's item, as the launch would have written it.
  const theirs = ItemSchema.safeParse(answer.data.item);
  if (theirs.success) await appendItem(io, { ...theirs.data, host: peer.id });
  else io.warn(`dogsled serve: admission of ${ticket.id}: ${host} started it but has no item for it`);
  return { kind: 'started' };
}

const AnswerSchema = lazySchema(() =>
  z.looseObject({
    state: z.enum(['started', 'not-started', 'pending']),
    reason: z.nullable(z.string()),
    item: z.unknown(),
  }),
);

/**
 * The service stopped, ending its calls to peers: a call that failed now says nothing of the peer,
 * and a ticket it was for is left as a crash would leave it, for the next run to settle.
 */
export function stoppedMidCall(io: WorkerIO): boolean {
  return io.transport?.stopping === true;
}

/** A launch error that may have come after the peer started the work (its reply never came back). */
export function mayHaveStarted(error: unknown): boolean {
  return error instanceof DogsledError && error.cause instanceof UnreachableError;
}
