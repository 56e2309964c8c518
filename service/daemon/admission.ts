// The service's admission worker (spec, "Items and closing"): admits pending tickets in FIFO order
// with planAdmissions, each one claimed under the queue lock together with its reservation (so a
// concurrent `run` cannot take the room first), then launched, then marked admitted. A ticket is
// launched at most once: one found `admitting` under another service run becomes a failed ticket,
// and a launch or admission error is recorded on the ticket, never retried elsewhere.

import { setTimeout as sleep } from 'node:timers/promises';
import { type AdmissionHost, type AdmissionStep, planAdmissions } from '../core/admission.js';
import { SETUP_CAP_MS } from '../core/budget.js';
import { liveReservations } from '../core/reservations.js';
import {
  type Admitter,
  interruptedFailure,
  isExpiredTicket,
  isInterrupted,
  pendingInOrder,
} from '../core/tickets.js';
import { DogsledError, messageOf } from '../errors.js';
import { LOCAL_HOST, readReservations, readSnapshot } from '../hosts/local.js';
import { reserveLocally } from '../hosts/place.js';
import { measureOf } from '../hosts/view.js';
import { Deadline } from '../jobs/deadline.js';
import { launchJob } from '../jobs/launch.js';
import { newId } from '../state/ids.js';
import { readServiceState } from '../state/service-lock.js';
import { readQueue, updateQueue } from '../state/work.js';
import type { Queue, Ticket } from '../state/work-schemas.js';
import { CompletionWorker } from './completion.js';
import { runInboxWorker } from './inbox-worker.js';
import { type ResolvedWorkerDeps, type WorkerDeps, withDefaults } from './work-deps.js';
import { runLoop } from './work-loop.js';

export type { WorkerDeps } from './work-deps.js';

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
  private readonly deps: ResolvedWorkerDeps;
  private recovered = false;
  private readonly unsettled = new Map<
    string,
    { from: 'pending' | 'admitting'; change: (t: Ticket) => Ticket }
  >();

  constructor(deps: WorkerDeps) {
    this.deps = withDefaults(deps);
    this.admitter = { pid: deps.pid, started_ms: deps.started_ms };
  }

  /**
   * Fails every ticket another service run left `admitting` (it may have launched its job, so it is
   * never launched again) and drops settled tickets older than a day. Returns the failed tickets.
   */
  async recover(): Promise<Ticket[]> {
    const failed = await updateQueue(this.deps, (queue) => {
      const now = this.deps.now();
      const interrupted: Ticket[] = [];
      const tickets = queue.tickets.flatMap((ticket) => {
        if (isExpiredTicket(ticket, now)) return [];
        if (!isInterrupted(ticket, this.admitter)) return [ticket];
        const settled = interruptedFailure(ticket, now);
        interrupted.push(settled);
        return [settled];
      });
      const changed = tickets.length !== queue.tickets.length || interrupted.length > 0;
      return changed ? { result: interrupted, next: { ...queue, tickets } } : { result: interrupted };
    });
    this.recovered = true;
    return failed;
  }

  /** One pass over the pending tickets; returns what happened to each ticket it acted on. */
  async pass(): Promise<AdmissionResult[]> {
    if (!this.recovered) await this.recover();
    await this.retryUnsettled();
    const queue = await readQueue(this.deps);
    await this.dropExpired(queue);
    const pending = pendingInOrder(queue.tickets);
    if (pending.length === 0) return [];
    const host = await this.localHost();
    const steps = planAdmissions(pending, [host], this.deps.policy, this.deps.now());
    const results: AdmissionResult[] = [];
    for (const step of steps) {
      const result = await this.take(step);
      results.push(result);
      // The host's own recheck found no room: the plan was optimistic, the next pass reads again.
      if (result.kind === 'full') break;
    }
    return results;
  }

  private async take(step: AdmissionStep<Ticket>): Promise<AdmissionResult> {
    if (step.kind === 'fail') return this.fail(step.ticket.id, 'pending', step.reason);
    return this.admit(step.ticket);
  }

  /** Claim (with its reservation), launch, settle. */
  private async admit(pending: Ticket): Promise<AdmissionResult> {
    const claim = await this.claim(pending.id);
    if (claim.kind !== 'claimed') return claim;
    const { ticket, host, jobId, itemId } = claim;
    const { deps } = this;
    // A `place` ticket is admitted by its reservation alone; a job ticket launches its job.
    if (ticket.request !== null && jobId !== null && itemId !== null) {
      const request = ticket.request;
      try {
        // Every launch gets the setup cap; an admission that runs out of it fails its ticket.
        const deadline = new Deadline(SETUP_CAP_MS);
        await deadline.step(`admission of ticket ${ticket.id}`, 'setup', () =>
          launchJob(deps, { jobId, itemId, request, owner: ticket.owner, host, ticket: ticket.id }, deadline),
        );
      } catch (error) {
        // Recorded on the ticket whatever it was: a ticket never stays `admitting` in a live run.
        if (!(error instanceof DogsledError))
          deps.warn(`dogsled serve: admission of ${ticket.id}: ${String(error)}`);
        return this.fail(ticket.id, 'admitting', messageOf(error));
      }
    }
    await this.testPause();
    const admitted = await this.settle(ticket.id, 'admitting', (current) => ({
      ...current,
      state: 'admitted',
      state_ms: deps.now(),
      notice: current.waiting ? null : 'pending',
    }));
    return admitted ? { kind: 'admitted', ticket: admitted } : { kind: 'gone' };
  }

  /**
   * Under the queue lock: the ticket must still be pending, and the host must accept a reservation
   * (its own recheck, under the placements lock). Only then is it `admitting`, with its job and item
   * ids chosen, so an interrupted launch can be named and never repeated.
   */
  private async claim(id: string): Promise<Claim> {
    return updateQueue<Claim>(this.deps, async (queue) => {
      const index = queue.tickets.findIndex((t) => t.id === id);
      const ticket = queue.tickets[index];
      if (ticket === undefined || ticket.state !== 'pending') return { result: { kind: 'gone' } };
      const placed = await reserveLocally(this.deps, ticket.owner);
      if (placed.kind === 'full') return { result: { kind: 'full' } };
      const jobId = ticket.request === null ? null : newId('j');
      const itemId = ticket.request === null ? null : newId('i');
      const claimed: Ticket = {
        ...ticket,
        state: 'admitting',
        state_ms: this.deps.now(),
        admitter: this.admitter,
        host: placed.host,
        reservation: placed.reservation.id,
        job: jobId,
        item: itemId,
      };
      return {
        result: { kind: 'claimed', ticket: claimed, host: placed.host, jobId, itemId },
        next: replaced(queue, index, claimed),
      };
    });
  }

  private async fail(id: string, from: 'pending' | 'admitting', error: string): Promise<AdmissionResult> {
    const failed = await this.settle(id, from, (current) => ({
      ...current,
      state: 'failed',
      state_ms: this.deps.now(),
      error,
      notice: current.waiting ? null : 'pending',
    }));
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
      const index = queue.tickets.findIndex((t) => t.id === id);
      const ticket = queue.tickets[index];
      if (ticket === undefined || ticket.state !== from) return { result: undefined };
      if (from === 'admitting' && isInterrupted(ticket, this.admitter)) return { result: undefined };
      const next = change(ticket);
      return { result: next, next: replaced(queue, index, next) };
    });
  }

  private async dropExpired(queue: Queue): Promise<void> {
    const now = this.deps.now();
    if (!queue.tickets.some((t) => isExpiredTicket(t, now))) return;
    await updateQueue(this.deps, (current) => ({
      result: undefined,
      next: { ...current, tickets: current.tickets.filter((t) => !isExpiredTicket(t, this.deps.now())) },
    }));
  }

  /** The local host's facts as placement judges them: its snapshot, its service and live reservations. */
  private async localHost(): Promise<AdmissionHost> {
    const { deps } = this;
    const [snapshot, service, reservations] = await Promise.all([
      readSnapshot(deps),
      readServiceState(deps.paths),
      readReservations(deps),
    ]);
    return {
      ...LOCAL_HOST,
      facts: {
        id: LOCAL_HOST.id,
        service: service.state,
        measure: snapshot ? measureOf(snapshot) : null,
        reservations: liveReservations(reservations, deps.now()).length,
      },
    };
  }

  /** DOGSLED_TEST_ADMISSION_PAUSE_MS: a window after the launch, before `admitted`, for SIGKILL tests. */
  private async testPause(): Promise<void> {
    const { env } = this.deps;
    if (env.DOGSLED_TEST !== '1') return;
    const ms = Number(env.DOGSLED_TEST_ADMISSION_PAUSE_MS ?? '');
    if (Number.isFinite(ms) && ms > 0) await sleep(ms);
  }
}

type Claim =
  | { kind: 'claimed'; ticket: Ticket; host: string; jobId: string | null; itemId: string | null }
  | { kind: 'gone' | 'full' };

function replaced(queue: Queue, index: number, ticket: Ticket): Queue {
  const tickets = queue.tickets.slice();
  tickets[index] = ticket;
  return { ...queue, tickets };
}

export interface WorkWorkers {
  /** Stops both workers after their current pass and resolves when they have. */
  stop(): Promise<void>;
}

/**
 * Starts the admission and completion workers of a service run, each on its own pace, independent
 * of snapshot publication. They end when `signal` aborts or `stop()` is called.
 */
export function startWorkWorkers(deps: WorkerDeps, signal: AbortSignal): WorkWorkers {
  const full = withDefaults(deps);
  const stopper = new AbortController();
  const stopped = AbortSignal.any([signal, stopper.signal]);
  const admission = new AdmissionWorker(full);
  const completion = new CompletionWorker(full);
  const paceMs = Math.max(WORK_PACE_MS, deps.paceMs ?? WORK_PACE_MS);
  const common = { paceMs, minGapMs: MIN_GAP_MS, signal: stopped, warn: full.warn };
  const done = Promise.all([
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
      },
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
