// `dogsled cancel TICKET`: cancels a pending ticket under the queue lock, so it cannot race the
// service's admission (which takes the same lock to move a ticket out of pending). Any other state
// is refused in one line: an admitted job is stopped with `stop`, not cancelled.

import { DogsledError } from '../core/common/errors.js';
import type { Ticket } from '../core/placement/queue-types.js';
import { cancelRefusal, cancelTicket, withTicket } from '../core/placement/tickets.js';
import type { StateIO } from '../state/io.js';
import { findTicket, updateQueue } from '../state/records/queue-items.js';

/** The cancelled ticket; an unknown id or a ticket that is not pending is a DogsledError. */
export async function cancelPending(io: StateIO, id: string): Promise<Ticket> {
  return updateQueue(io, (queue) => {
    const ticket = findTicket(queue, id);
    const refusal = cancelRefusal(ticket);
    if (refusal !== null) throw new DogsledError(refusal);
    const cancelled = cancelTicket(ticket, io.now());
    return { result: cancelled, next: withTicket(queue, cancelled) };
  });
}
