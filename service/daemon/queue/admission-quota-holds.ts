// Quota-aware admission (beyond the spec, `[quota] hold_when_exhausted`): before each admission
// pass, the pending tickets whose harness's pool is exhausted (core/quota-hold.ts) get the reason
// written on them and are left out of the pass; a hold that ended (the reset came, a newer snapshot
// frees the pool, the key was switched off) is cleared, and the ticket is admitted in that pass.
// quota.json is read only when a pending ticket names a pooled harness; one that cannot be read is
// unknown quota, which never holds work back.

import { messageOf } from '../../core/common/errors.js';
import type { Ticket } from '../../core/placement/queue-types.js';
import { holdTicket, withTicket } from '../../core/placement/tickets.js';
import { mayHold, sameHold, ticketHolds } from '../../core/quota/quota-hold.js';
import { emptySnapshot } from '../../core/quota/quota-rules.js';
import { squeezedLine } from '../../core/text/clean.js';
import { readQuota } from '../../quota/quota-store.js';
import { updateQueue } from '../../state/records/queue-items.js';
import type { WorkerIO } from '../worker-io.js';

export class QuotaHolds {
  private readError = '';

  constructor(private readonly deps: WorkerIO) {}

  /** The pending tickets (FIFO order) that may be admitted now; the holds of the others written. */
  async admissible(pending: readonly Ticket[]): Promise<Ticket[]> {
    const { deps } = this;
    const policy = deps.config.quota;
    const recorded = pending.some((ticket) => ticket.hold != null);
    if (!recorded && !mayHold(pending, policy)) return [...pending];
    const snapshot = mayHold(pending, policy) ? await this.snapshot() : emptySnapshot();
    const holds = ticketHolds(pending, snapshot, policy, deps.now());
    const changed = pending.filter((ticket) => !sameHold(ticket.hold, holds.get(ticket.id)));
    if (changed.length > 0) {
      const ids = new Set(changed.map((ticket) => ticket.id));
      await updateQueue(deps, (queue) => {
        let next = queue;
        for (const ticket of queue.tickets) {
          // Only a ticket still pending: one cancelled or claimed meanwhile keeps what it has.
          if (!ids.has(ticket.id) || ticket.state !== 'pending') continue;
          next = withTicket(next, holdTicket(ticket, holds.get(ticket.id) ?? null));
        }
        return { result: undefined, next };
      });
    }
    return pending.filter((ticket) => !holds.has(ticket.id));
  }

  private async snapshot() {
    try {
      const snapshot = await readQuota(this.deps);
      this.readError = '';
      return snapshot;
    } catch (error) {
      // Once per distinct trouble, not once a second.
      const line = `dogsled serve: admission: quota.json: ${squeezedLine(messageOf(error))}; quota holds nothing back`;
      if (line !== this.readError) this.deps.warn(line);
      this.readError = line;
      return emptySnapshot();
    }
  }
}
