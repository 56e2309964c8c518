// The service's admission worker (spec, "Items and closing"): admits pending job, agent and place
// tickets in FIFO order with planAdmissions over this host and every enabled peer
// (peer-admission.ts), each one claimed under the queue lock together with its host's own recheck
// and reservation (so a concurrent `run` cannot take the room first), then launched (here with the
// caller's environment its ticket kept, a job's whole or a child's PATH, on a peer through its host
// verbs), then marked admitted. A ticket is launched at most once: one found `admitting` under
// another service run is settled from its job record (admission-recovery.ts), and a launch or
// admission error is recorded on the ticket, never retried elsewhere.

import { jobInWorktree } from '../../actions/run.js';
import { launchAgent } from '../../agents/launch-agent.js';
import { messageOf } from '../../core/common/errors.js';
import {
  type AdmissionHost,
  type AdmissionStep,
  planAdmissions,
} from '../../core/placement/admission-order.js';
import type { Admitter, PlacedWorktree, Queue, Ticket } from '../../core/placement/queue-types.js';
import {
  admitTicket,
  claimTicket,
  failTicket,
  interruptedNeverStarted,
  isInterrupted,
  type LaunchEvidence,
  pendingInOrder,
  settleInterrupted,
  withTicket,
} from '../../core/placement/tickets.js';
import { squeezedLine } from '../../core/text/clean.js';
import { recordHistory } from '../../history/history-pass.js';
import type { PeerHost } from '../../hosts/fleet.js';
import { hostFacts, LOCAL_HOST, readLocalFacts } from '../../hosts/local-facts.js';
import { type PlaceOutcome, reserveLocally } from '../../hosts/reserve-room.js';
import { launchJob } from '../../jobs/job-launch.js';
import { newId } from '../../state/engine/ids.js';
import { readEnvFile, removeEnvFile, ticketEnvPath } from '../../state/records/env-files.js';
import { readQueue, updateQueue } from '../../state/records/queue-items.js';
import type { SshPool } from '../../transport/pool.js';
import { FinishWorker } from '../agents/finish-worker.js';
import { runInboxWorker } from '../inbox-worker.js';
import { PeersLane, peersLanePaceMs } from '../peers/peers-worker.js';
import { runLoop } from '../work-loop.js';
import type { WorkerIO } from '../worker-io.js';
import { AdmissionHolds } from './admission-holds.js';
import { admissionPause, type LaunchFailure, launchUnderCap } from './admission-launch.js';
import {
  evidenceThere,
  launchThere,
  mayHaveStarted,
  PeerRefusals,
  reserveThere,
  stoppedMidCall,
} from './admission-peers.js';
import {
  dropExpiredTickets,
  launchEvidence,
  releaseUnlaunched,
  settleInterruptedTickets,
  sweepTicketEnvs,
} from './admission-recovery.js';
import { placeWorktree } from './admission-worktree.js';
import { CompletionWorker } from './completion-worker.js';

export type { WorkerIO } from '../worker-io.js';

/**
 * Both workers look at least this often (or at the service's interval when it is longer), and
 * admission at once when queue.json or host.json changes: a new ticket, or a new snapshot with room.
 */
export const WORK_PACE_MS = 1_000;
const MIN_GAP_MS = 50;

export type AdmissionResult =
  | { kind: 'admitted'; ticket: Ticket }
  | { kind: 'failed'; ticket: Ticket }
  /** Settled by someone else meanwhile (cancelled, or failed by a newer service run). */
  | { kind: 'gone' }
  | { kind: 'full' };

export class AdmissionWorker {
  readonly admitter: Admitter;
  private readonly deps: WorkerIO;
  private readonly holds: AdmissionHolds;
  private readonly refusals = new PeerRefusals();
  private recovered = false;
  private sweepError = '';
  private readonly unsettled = new Map<
    string,
    { from: 'pending' | 'admitting'; change: (t: Ticket) => Ticket }
  >();

  constructor(deps: WorkerIO) {
    this.deps = deps;
    this.holds = new AdmissionHolds(deps);
    this.admitter = { pid: deps.pid, started_ms: deps.started_ms };
  }

  /**
   * Settles every ticket another service run left `admitting` from its job record (never launching
   * it again), drops settled tickets older than a day and removes the environments of tickets that
   * no longer wait. Returns the tickets it settled.
   */
  async recover(): Promise<Ticket[]> {
    const { deps } = this;
    const before = await readQueue(deps);
    // Records first, each under its own lock alone; the queue lock comes after, never around them.
    const evidence = new Map<string, LaunchEvidence>();
    const interrupted = before.tickets.filter((ticket) => isInterrupted(ticket, this.admitter));
    const { peers } = interrupted.some(onPeer) ? await this.refusals.hosts(deps) : { peers: [] };
    for (const ticket of interrupted) {
      // A launch on a peer is settled from what the peer and the owner's items say (never again).
      const found = onPeer(ticket)
        ? await evidenceThere(deps, peerOf(peers, ticket.host), ticket, interruptedNeverStarted(ticket))
        : await launchEvidence(deps, ticket, true);
      evidence.set(ticket.id, found);
      // Before the ticket settles: whoever sees it failed finds its room free again.
      await this.release(ticket, found);
    }
    const settled = await settleInterruptedTickets(deps, this.admitter, evidence);
    await this.sweep(await readQueue(deps));
    this.recovered = true;
    return settled;
  }

  /** One pass over the pending tickets; returns what happened to each ticket it acted on. */
  async pass(): Promise<AdmissionResult[]> {
    if (!this.recovered) await this.recover();
    await this.retryUnsettled();
    const queue = await readQueue(this.deps);
    await dropExpiredTickets(this.deps, queue);
    await this.sweep(queue);
    // A ticket whose harness's quota is exhausted, or whose child's budget is spent, waits with its
    // reason, and holds no host.
    let fleet: Awaited<ReturnType<PeerRefusals['hosts']>> | undefined;
    const fleetNow = async () => {
      fleet ??= await this.refusals.hosts(this.deps);
      return fleet;
    };
    const { tickets: pending, spentHosts } = await this.holds.admissible(
      pendingInOrder(queue.tickets),
      async () => [LOCAL_HOST, ...(await fleetNow()).hosts],
    );
    if (pending.length === 0) return [];
    const { hosts: peers, peers: peerHosts } = await fleetNow();
    const hosts = [await this.localHost(), ...peers];
    const steps = planAdmissions(pending, hosts, this.deps.config, this.deps.now(), spentHosts);
    const results: AdmissionResult[] = [];
    for (const step of steps) {
      const peer = step.kind === 'admit' ? peerOf(peerHosts, step.host.id) : undefined;
      const result = await this.take(step, peer);
      results.push(result);
      // The host's own recheck found no room: the plan was optimistic, the next pass reads again.
      if (result.kind !== 'full') continue;
      if (peer !== undefined) await this.refusals.refused(this.deps, peer.id);
      break;
    }
    return results;
  }

  private async take(step: AdmissionStep<Ticket>, peer: PeerHost | undefined): Promise<AdmissionResult> {
    if (step.kind === 'fail') return this.fail(step.ticket.id, 'pending', step.reason);
    return this.admit(step.ticket, peer);
  }

  /** Claim (with its reservation), launch, settle; on `peer` when one is given, else here. */
  private async admit(pending: Ticket, peer: PeerHost | undefined): Promise<AdmissionResult> {
    const claim = await this.claim(pending.id, peer);
    if (claim.kind !== 'claimed') return claim;
    const { ticket, host, jobId, itemId } = claim;
    const { deps } = this;
    await admissionPause(this.deps.env, 'before-launch');
    if (peer !== undefined) return this.admitThere(ticket, peer);
    // A `place` ticket is admitted by its reservation (and its `--branch` worktree); a job ticket
    // launches its job, an agent ticket its child.
    const common = { owner: ticket.owner, host, ticket: ticket.id, reservation: ticket.reservation };
    let failure: LaunchFailure | null = null;
    if (ticket.agent && itemId !== null) {
      const request = ticket.agent;
      failure = await launchUnderCap(this.deps, ticket.id, async (ctx, deadline) => {
        // The caller's PATH its ticket kept (core/agent-env.ts), never the service's own.
        const env = await readEnvFile(ticketEnvPath(deps.paths, ticket.id));
        return launchAgent(ctx, { ...common, itemId, request, env: env ?? null }, deadline);
      });
      if (failure === null) await this.dropEnv(ticket.id);
    } else if (ticket.request !== null && jobId !== null && itemId !== null) {
      const request = ticket.request;
      failure = await launchUnderCap(this.deps, ticket.id, async (ctx, deadline) => {
        const env = await readEnvFile(ticketEnvPath(deps.paths, ticket.id));
        const inWorktree = await jobInWorktree(ctx, request, deadline);
        const spec = { ...common, jobId, itemId, request: inWorktree, env: env ?? null };
        // Headless, the supervisor this service keeps warm takes it (jobs/warm-claim.ts).
        return launchJob({ ...ctx, warm: true }, spec, deadline);
      });
      if (failure === null) await this.dropEnv(ticket.id);
    }
    if (failure !== null) return this.launchFailed(ticket, failure.error);
    // A `place --branch` ticket nobody waits for gets its worktree here; a waiting caller makes it.
    let worktree: PlacedWorktree | null = null;
    if (ticket.place && !ticket.waiting) {
      const made = await placeWorktree(deps, ticket, ticket.place);
      if (!made.ok) return this.fail(ticket.id, 'admitting', made.error);
      worktree = made.worktree;
    }
    return this.admitted(ticket, worktree);
  }

  /**
   * The launch on a peer. A failure there fails the ticket with the peer's one line, never another
   * host; one whose reply may have been lost after the peer started it is settled from the evidence.
   */
  private async admitThere(ticket: Ticket, peer: PeerHost): Promise<AdmissionResult> {
    let worktree: PlacedWorktree | null = null;
    const failure = await launchUnderCap(this.deps, ticket.id, async (ctx, deadline) => {
      worktree = await launchThere(ctx, peer, ticket, deadline);
    });
    if (failure === null) {
      await removeEnvFile(ticketEnvPath(this.deps.paths, ticket.id)).catch(() => undefined);
      return this.admitted(ticket, worktree);
    }
    // Cut short by the service's stop: left `admitting`, as a crash leaves it (never relaunched).
    if (stoppedMidCall(this.deps)) throw failure.cause;
    // The peer answered the launch with its refusal: asked, not ended (nothing of it is made there).
    const lost = mayHaveStarted(failure.cause);
    const evidence = await evidenceThere(this.deps, peer, ticket, lost ? failure.error : null);
    if (evidence.kind === 'started') return this.admitted(ticket, null);
    await this.release(ticket, evidence);
    const doubt = lost && evidence.kind === 'unknown';
    const error = doubt
      ? `${failure.error}; it may have started there: inspect it, nothing is relaunched`
      : failure.error;
    return this.fail(ticket.id, 'admitting', error);
  }

  /** A launched ticket's environment is done with; the sweep takes it if this fails. */
  private async dropEnv(id: string): Promise<void> {
    await removeEnvFile(ticketEnvPath(this.deps.paths, id)).catch((error: unknown) =>
      this.deps.warn(`dogsled serve: admission of ${id}: ${squeezedLine(messageOf(error))}`),
    );
  }

  private async admitted(ticket: Ticket, worktree: PlacedWorktree | null): Promise<AdmissionResult> {
    await admissionPause(this.deps.env, 'after-launch');
    const admitted = await this.settle(ticket.id, 'admitting', (current) => ({
      ...admitTicket(current, this.deps.now()),
      ...(worktree === null ? {} : { worktree }),
    }));
    return admitted ? { kind: 'admitted', ticket: admitted } : { kind: 'gone' };
  }

  /**
   * Under the queue lock: the ticket must still be pending, and the host must accept a reservation
   * (its own recheck, under the placements lock). Only then is it `admitting`, with its job and item
   * ids chosen, so an interrupted launch can be named and never repeated.
   */
  private async claim(id: string, peer: PeerHost | undefined): Promise<Claim> {
    return updateQueue<Claim>(this.deps, async (queue) => {
      const ticket = queue.tickets.find((t) => t.id === id);
      if (ticket === undefined || ticket.state !== 'pending') return { result: { kind: 'gone' } };
      const placed: PlaceOutcome =
        peer === undefined
          ? await reserveLocally(this.deps, ticket.owner)
          : await reserveThere(this.deps, peer, ticket.owner);
      if (placed.kind === 'full') return { result: { kind: 'full' } };
      const jobId = ticket.request === null ? null : newId('j');
      const itemId = ticket.request === null && !ticket.agent ? null : newId('i');
      const claim = {
        admitter: this.admitter,
        host: placed.host,
        reservation: placed.reservation.id,
        job: jobId,
        item: itemId,
      };
      const claimed = claimTicket(ticket, claim, this.deps.now());
      return {
        result: { kind: 'claimed', ticket: claimed, host: placed.host, jobId, itemId },
        next: withTicket(queue, claimed),
      };
    });
  }

  /**
   * A launch that threw may still have started its job (Herdr's reply was lost after the line was
   * typed, or the deadline fired late): the record decides, as after an interrupted admission.
   */
  private async launchFailed(ticket: Ticket, error: string): Promise<AdmissionResult> {
    const evidence = await launchEvidence(this.deps, ticket, false);
    if (evidence.kind === 'started') {
      const admitted = await this.settle(ticket.id, 'admitting', (current) =>
        settleInterrupted(current, evidence, this.deps.now()),
      );
      return admitted ? { kind: 'admitted', ticket: admitted } : { kind: 'gone' };
    }
    await this.release(ticket, evidence);
    return this.fail(ticket.id, 'admitting', error);
  }

  /** Removes the environments of tickets that no longer wait; trouble never holds admission up. */
  private async sweep(queue: Queue): Promise<void> {
    try {
      await sweepTicketEnvs(this.deps, queue);
      this.sweepError = '';
    } catch (error) {
      // Once per distinct trouble, not once a second.
      const line = `dogsled serve: admission: ${squeezedLine(messageOf(error))}`;
      if (line !== this.sweepError) this.deps.warn(line);
      this.sweepError = line;
    }
  }

  /** Gives back what a ticket whose job never ran held; trouble is a warning, the TTL still ends it. */
  private async release(ticket: Ticket, evidence: LaunchEvidence): Promise<void> {
    await releaseUnlaunched(this.deps, ticket, evidence).catch((error: unknown) =>
      this.deps.warn(`dogsled serve: admission of ${ticket.id}: ${squeezedLine(messageOf(error))}`),
    );
  }

  private async fail(id: string, from: 'pending' | 'admitting', error: string): Promise<AdmissionResult> {
    const failed = await this.settle(id, from, (current) => failTicket(current, error, this.deps.now()));
    return failed ? { kind: 'failed', ticket: failed } : { kind: 'gone' };
  }

  /**
   * Changes the ticket only if it is still `from` (and, when admitting, still ours). A change that
   * could not be written (a lock timeout) is kept and retried first thing in the next pass, so a
   * launched ticket does not stay `admitting` for the rest of the run.
   */
  private async settle(
    id: string,
    from: 'pending' | 'admitting',
    change: (ticket: Ticket) => Ticket,
  ): Promise<Ticket | undefined> {
    try {
      const settled = await this.write(id, from, change);
      this.unsettled.delete(id);
      return settled;
    } catch (error) {
      this.unsettled.set(id, { from, change });
      throw error;
    }
  }

  private async retryUnsettled(): Promise<void> {
    for (const [id, { from, change }] of [...this.unsettled]) await this.settle(id, from, change);
  }

  private async write(
    id: string,
    from: 'pending' | 'admitting',
    change: (ticket: Ticket) => Ticket,
  ): Promise<Ticket | undefined> {
    return updateQueue(this.deps, (queue) => {
      const ticket = queue.tickets.find((t) => t.id === id);
      if (ticket === undefined || ticket.state !== from) return { result: undefined };
      if (from === 'admitting' && isInterrupted(ticket, this.admitter)) return { result: undefined };
      const next = change(ticket);
      return { result: next, next: withTicket(queue, next) };
    });
  }

  /** The local host's facts as placement judges them: its snapshot, its service and live reservations. */
  private async localHost(): Promise<AdmissionHost> {
    return { ...LOCAL_HOST, facts: hostFacts(await readLocalFacts(this.deps), this.deps.now()) };
  }
}

/** A ticket claimed for a peer: its host is not this one. */
function onPeer(ticket: Ticket): boolean {
  return ticket.host !== null && ticket.host !== LOCAL_HOST.id;
}

function peerOf(peers: readonly PeerHost[], id: string | null): PeerHost | undefined {
  return peers.find((peer) => peer.id === id);
}

type Claim =
  | { kind: 'claimed'; ticket: Ticket; host: string; jobId: string | null; itemId: string | null }
  | { kind: 'gone' | 'full' };

export interface WorkWorkers {
  /** Stops both workers after their current pass and resolves when they have. */
  stop(): Promise<void>;
}

/**
 * Starts the admission, completion and finish workers of a service run, each on its own pace, independent
 * of snapshot publication. They end when `signal` aborts or `stop()` is called.
 */
const historyWarned = new Set<string>();

/** One warning per distinct failure (a directory in history.jsonl's place is named once). */
function warnHistory(io: WorkerIO, error: unknown): void {
  const line = `dogsled serve: history: ${squeezedLine(messageOf(error), 300)}`;
  if (historyWarned.has(line)) return;
  historyWarned.add(line);
  io.warn(line);
}

export function startWorkWorkers(
  /** With the service's pool: the peers lane reads over it, admission calls peers over it. */
  deps: WorkerIO & { transport: SshPool },
  signal: AbortSignal,
  /** Runs after each finish pass in the same lane (the orphan check), so the two never race. */
  afterFinish?: () => Promise<unknown>,
): WorkWorkers {
  const full = deps;
  const stopper = new AbortController();
  const stopped = AbortSignal.any([signal, stopper.signal]);
  const admission = new AdmissionWorker(full);
  const completion = new CompletionWorker(full);
  const finish = new FinishWorker(full);
  const paceMs = Math.max(WORK_PACE_MS, deps.paceMs ?? WORK_PACE_MS);
  const common = { paceMs, minGapMs: MIN_GAP_MS, signal: stopped, warn: full.warn };
  const peers = new PeersLane(full, deps.transport, stopped);
  const done = Promise.all([
    runLoop({
      ...common,
      name: 'peers',
      paceMs: peersLanePaceMs(full, paceMs),
      pass: async () => {
        await peers.pass();
      },
    }),
    runLoop({
      ...common,
      name: 'admission',
      pass: async () => {
        await admission.pass();
      },
      watch: { dir: full.paths.dir, files: ['queue.json', 'host.json'] },
    }),
    runLoop({
      ...common,
      name: 'completion',
      pass: async () => {
        await completion.pass();
        // Items closed by any lane (completion, finish, close) reach history.jsonl here, one writer.
        await recordHistory(full).catch((error: unknown) => warnHistory(full, error));
      },
    }),
    runLoop({
      ...common,
      name: 'finish',
      pass: async () => {
        await finish.pass();
        await afterFinish?.();
      },
      watch: { dir: full.paths.dir, files: ['done.json'] },
    }),
    runInboxWorker(full, common),
  ]);
  return {
    stop: async () => {
      stopper.abort();
      await done;
    },
  };
}
