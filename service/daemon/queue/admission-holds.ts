// What keeps a pending ticket out of an admission pass with its reason written on it, beyond the
// spec: its harness's quota pool is exhausted (`[quota] hold_when_exhausted`, core/quota/quota-hold.ts),
// or a child's owner, or every host it could go to, has spent its day (`[budget]`,
// core/receipts/day-budget.ts); a host whose day is spent is left out of a child's hosts. A hold
// that ended (a reset came, a new day, the key was switched off) is cleared and the ticket is
// admitted in that pass. quota.json is read only when a pending ticket names a pooled harness, and
// receipts only when a budget is set and a child waits; either one that cannot be read holds
// nothing back (with one warning per distinct trouble).

import { messageOf } from '../../core/common/errors.js';
import type { Ticket } from '../../core/placement/queue-types.js';
import { holdTicket, withTicket } from '../../core/placement/tickets.js';
import { mayHold, type QuotaHold, sameHold, ticketHolds } from '../../core/quota/quota-hold.js';
import { emptySnapshot } from '../../core/quota/quota-rules.js';
import { budgetActive, daySpend, ticketBudgets } from '../../core/receipts/day-budget.js';
import { squeezedLine } from '../../core/text/clean.js';
import { RunningCosts, readChildSpends } from '../../history/day-spend.js';
import { readQuota } from '../../quota/quota-store.js';
import { updateQueue } from '../../state/records/queue-items.js';
import { localDay } from '../../time/local-day.js';
import type { WorkerIO } from '../worker-io.js';

export interface Admissible {
  /** The pending tickets (FIFO order) that may be admitted now. */
  tickets: Ticket[];
  /** Per child ticket, the hosts whose budget is spent: it may not start there. */
  spentHosts: Map<string, ReadonlySet<string>>;
}

type Hosts = () => Promise<ReadonlyArray<{ id: string; label: string }>>;

export class AdmissionHolds {
  private readonly warned = new Map<'quota' | 'budget', string>();
  private readonly costs = new RunningCosts();

  constructor(private readonly deps: WorkerIO) {}

  /** The tickets that may be admitted now; the holds of the others written on them. */
  async admissible(pending: readonly Ticket[], hosts: Hosts): Promise<Admissible> {
    const { deps } = this;
    const now = deps.now();
    const policy = deps.config.quota;
    const recorded = pending.some((ticket) => ticket.hold != null);
    const quota = mayHold(pending, policy) ? await this.snapshot() : emptySnapshot();
    // A child's quota hold first: with no pool to draw on, its budget is no matter.
    const holds: Map<string, QuotaHold> = ticketHolds(pending, quota, policy, now);
    const spentHosts = new Map<string, ReadonlySet<string>>();
    const children = pending.filter((ticket) => ticket.kind === 'agent' && !holds.has(ticket.id));
    if (budgetActive(deps.config.budget) && children.length > 0) {
      const day = localDay(now);
      const spend = await this.spend(day);
      if (spend !== undefined) {
        const verdicts = ticketBudgets(children, await hosts(), spend, deps.config.budget, day);
        for (const [id, verdict] of verdicts) {
          if (verdict.hold !== null) holds.set(id, verdict.hold);
          else if (verdict.spent_hosts.length > 0) spentHosts.set(id, new Set(verdict.spent_hosts));
        }
      }
    }
    if (recorded || holds.size > 0) await this.write(pending, holds);
    return { tickets: pending.filter((ticket) => !holds.has(ticket.id)), spentHosts };
  }

  /** Writes each pending ticket's hold (or its end) where it changed; one queue write at most. */
  private async write(pending: readonly Ticket[], holds: ReadonlyMap<string, QuotaHold>): Promise<void> {
    const changed = pending.filter((ticket) => !sameHold(ticket.hold, holds.get(ticket.id)));
    if (changed.length === 0) return;
    const ids = new Set(changed.map((ticket) => ticket.id));
    await updateQueue(this.deps, (queue) => {
      let next = queue;
      for (const ticket of queue.tickets) {
        // Only a ticket still pending: one cancelled or claimed meanwhile keeps what it has.
        if (!ids.has(ticket.id) || ticket.state !== 'pending') continue;
        next = withTicket(next, holdTicket(ticket, holds.get(ticket.id) ?? null));
      }
      return { result: undefined, next };
    });
  }

  private async snapshot() {
    try {
      const snapshot = await readQuota(this.deps);
      this.warned.delete('quota');
      return snapshot;
    } catch (error) {
      this.warnOnce('quota', `quota.json: ${squeezedLine(messageOf(error))}; quota holds nothing back`);
      return emptySnapshot();
    }
  }

  private async spend(day: { start_ms: number; end_ms: number }) {
    try {
      const spend = daySpend(await readChildSpends(this.deps, this.costs), day);
      this.warned.delete('budget');
      return spend;
    } catch (error) {
      this.warnOnce('budget', `budget: ${squeezedLine(messageOf(error))}; budgets hold nothing back`);
      return undefined;
    }
  }

  /** Once per distinct trouble, not once a second. */
  private warnOnce(kind: 'quota' | 'budget', text: string): void {
    const line = `dogsled serve: admission: ${text}`;
    if (this.warned.get(kind) !== line) this.deps.warn(line);
    this.warned.set(kind, line);
  }
}
