// Submitting work (a job, or a bare placement for `place`): under the queue lock, a request waits behind any pending ticket that could take
// one of its hosts (FIFO: new work never overtakes waiting work), else it is placed with the same
// policy as `place` (which writes the reservation under the placements lock, taken inside the
// queue lock as lock.ts orders them), else it becomes a pending ticket that the service admits. A
// job or agent ticket's caller environment (core/job-env.ts, core/agent-env.ts) goes to
// tickets/ID.env (never queue.json, which status shows) before the ticket is in the queue, so the
// service never admits a ticket without it.

import { DogsledError } from '../core/common/errors.js';
import { ticketsAhead } from '../core/placement/admission-order.js';
import { findHost, type Refusal } from '../core/placement/placement.js';
import type { AgentRequest, JobRequest, PlaceBranch, Ticket } from '../core/placement/queue-types.js';
import { pendingInOrder, pendingTicket } from '../core/placement/tickets.js';
import { isHeld } from '../core/quota/quota-hold.js';
import { type BudgetVerdict, budgetActive, budgetVerdict, daySpend } from '../core/receipts/day-budget.js';
import { readChildSpends } from '../history/day-spend.js';
import { enabledPeers } from '../hosts/fleet.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { type Placed, placeWork, refuseLastingFailure } from '../hosts/reserve-room.js';
import { newId } from '../state/engine/ids.js';
import type { HostIO } from '../state/io.js';
import { type Environment, removeEnvFile, ticketEnvPath, writeEnvFile } from '../state/records/env-files.js';
import { updateQueue } from '../state/records/queue-items.js';
import { localDay } from '../time/local-day.js';

export interface WorkSubmission {
  /** The job to start; null asks for a reservation only (`dogsled place`) or starts `agent`. */
  request: JobRequest | null;
  /** The child agent to start (`dogsled agent`); its task file is already written. */
  agent?: AgentRequest;
  /** `place --branch`: the worktree the admitted reservation gets. */
  place?: PlaceBranch;
  /** A host id or label the caller pinned (`--host`), else null. */
  pin: string | null;
  /** The caller's pane (HERDR_PANE_ID), else null. */
  owner: string | null;
  /** The caller waits for the ticket (`--wait`). */
  waiting: boolean;
  /** A ticket even when a host has room: the service admits it (the MCP `spawn`). */
  queueAlways?: boolean;
  /**
   * The caller's environment for a job (core/job-env.ts) or a child (core/agent-env.ts), kept until
   * its admission if it queues.
   */
  env?: Environment;
}

/** A ticket that waits for the service's admission, with why it could not be placed now. */
export interface Queued {
  kind: 'queued';
  ticket: Ticket;
  /** Earlier pending tickets that could take the same hosts (FIFO: it waits behind them). */
  behind: number;
  /** Each host's refusal, when none was ahead and no host had room. */
  refusals: Refusal[];
}

export type SubmitOutcome = Placed | Queued;

/** `command` names the caller in one-line errors (`run: unknown host "x" (known: local)`). */
export async function submitWork(io: HostIO, job: WorkSubmission, command = 'run'): Promise<SubmitOutcome> {
  let envFile: string | undefined;
  // The hosts work may be pinned to, by id or label: this one and every enabled peer.
  const peers = await enabledPeers(io);
  const hosts: Array<{ id: string; label: string }> = [
    LOCAL_HOST,
    ...peers.map(({ id, label }) => ({ id, label })),
  ];
  const pinned = job.pin === null ? undefined : findHost(hosts, job.pin);
  if (job.pin !== null && pinned === undefined) {
    const known = hosts.map((host) => host.id).join(', ');
    throw new DogsledError(`${command}: unknown host "${job.pin}" (known: ${known})`);
  }
  // A peer that refuses our key is refused now, not waited for until the deadline (nor queued).
  const peer = peers.find((p) => p.id === pinned?.id);
  if (peer !== undefined) await refuseLastingFailure(io, peer);
  // A child whose owner, or every host it could go to, spent its day waits with that reason; one
  // whose budget is spent on some hosts goes only to the others.
  const budget = job.agent === undefined ? null : await childBudget(io, job, hosts);
  return updateQueue<SubmitOutcome>(io, async (queue) => {
    const pool = pinned === undefined ? hosts : [pinned];
    // A ticket waiting for its harness's quota holds no host: new work does not queue behind it.
    const waiting = pendingInOrder(queue.tickets).filter((ticket) => !isHeld(ticket, io.now()));
    const behind = ticketsAhead(waiting, hosts, new Set(pool.map((host) => host.id)));
    let refusals: Refusal[] = [];
    if (behind === 0 && !job.queueAlways && budget?.hold == null) {
      const avoid = new Set(budget?.spent_hosts ?? []);
      const outcome = await placeWork(io, { pin: job.pin ?? undefined, owner: job.owner, avoid });
      if (outcome.kind === 'placed') return { result: outcome };
      refusals = outcome.refusals;
    }
    const ticket = pendingTicket(
      {
        id: newId('t'),
        kind: job.agent !== undefined ? 'agent' : job.request === null ? 'place' : 'job',
        owner: job.owner,
        pin: job.pin,
        request: job.request,
        waiting: job.waiting,
        ...(job.agent === undefined ? {} : { agent: job.agent }),
        ...(job.place === undefined ? {} : { place: job.place }),
      },
      io.now(),
    );
    if (budget?.hold != null) ticket.hold = { ...budget.hold };
    if ((job.request !== null || job.agent !== undefined) && job.env !== undefined) {
      envFile = ticketEnvPath(io.paths, ticket.id);
      await writeEnvFile(envFile, job.env);
    }
    return {
      result: { kind: 'queued', ticket, behind, refusals } satisfies SubmitOutcome,
      next: { ...queue, tickets: [...queue.tickets, ticket] },
    };
  }).catch(async (error: unknown) => {
    // A ticket that never reached the queue must not leave its environment behind.
    if (envFile !== undefined) await removeEnvFile(envFile).catch(() => undefined);
    throw error;
  });
}

/** The budget verdict of a child about to be submitted; null when no budget is set. */
async function childBudget(
  io: HostIO,
  job: WorkSubmission,
  hosts: ReadonlyArray<{ id: string; label: string }>,
): Promise<BudgetVerdict | null> {
  const policy = io.config.budget;
  if (!budgetActive(policy)) return null;
  const day = localDay(io.now());
  const spend = daySpend(await readChildSpends(io), day);
  return budgetVerdict({ owner: job.owner, pin: job.pin }, hosts, spend, policy, day);
}
