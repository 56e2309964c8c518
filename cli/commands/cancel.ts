// `dogsled cancel TICKET [--json]`: cancels a pending ticket under the queue lock, so it cannot race
// the service's admission (which takes the same lock to move a ticket out of pending). Any other
// state is refused in one line (exit 2): an admitted job is stopped with `stop`, not cancelled.

import { cancelRefusal } from '../../service/core/tickets.js';
import { DogsledError } from '../../service/errors.js';
import { statePaths } from '../../service/state/paths.js';
import { findTicket, updateQueue, type WorkIO } from '../../service/state/work.js';
import type { Ticket } from '../../service/state/work-schemas.js';
import type { CliContext } from '../context.js';
import { ownerText, ticketWhat } from '../render/status-work.js';

export interface CancelFlags {
  json?: boolean;
}

export async function cancelCommand(id: string, flags: CancelFlags, ctx: CliContext): Promise<number> {
  const io: WorkIO = { paths: statePaths(ctx.stateDir), now: ctx.now, warn: ctx.warn };
  const cancelled = await updateQueue(io, (queue) => {
    const ticket = findTicket(queue, id);
    const refusal = cancelRefusal(ticket);
    if (refusal !== null) throw new DogsledError(refusal);
    const now = io.now();
    const next: Ticket = { ...ticket, state: 'cancelled', state_ms: now, error: 'cancelled', notice: null };
    const tickets = queue.tickets.map((t) => (t.id === ticket.id ? next : t));
    return { result: next, next: { ...queue, tickets } };
  });
  if (flags.json) ctx.out(`${JSON.stringify(cancelled)}\n`);
  else {
    const what = ticketWhat(cancelled);
    ctx.out(`cancelled ${cancelled.id}: ${what} (owner ${ownerText(cancelled.owner)})\n`);
  }
  return 0;
}
