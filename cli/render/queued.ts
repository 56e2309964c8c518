// What a caller hears about its ticket, shared by `place`, `run` and `agent`, which queue alike: why
// the request became a ticket (one line, in the words the board shows beside a WAITING row:
// service/core/placement/queued-why.ts), the human line for a ticket nobody waits for, and what a wait that
// gave up leaves behind (the ticket stays pending: a wait never cancels).

import type { Queued } from '../../service/actions/verb-io.js';
import { queuedWhy } from '../../service/core/placement/queued-why.js';
import { plainLine } from '../../service/core/text/clean.js';

/** Why it queued: its hold (a child whose budget is spent) when it has one, else the room it lacks. */
export function whyQueued(
  queued: Pick<Queued, 'behind' | 'refusals'> & { ticket?: Queued['ticket'] },
): string {
  const hold = queued.ticket?.hold;
  if (hold != null) return plainLine(hold.reason);
  return queuedWhy(queued.behind, queued.refusals);
}

/**
 * A ticket's human line when nobody waits for it: the service starts it (`place`: reserves its room)
 * once a host has room.
 */
export function queuedLine(
  queued: Pick<Queued, 'ticket' | 'behind' | 'refusals'>,
  does: 'starts it' | 'reserves its room' = 'starts it',
): string {
  const id = queued.ticket.id;
  const when = queued.ticket.hold != null ? 'its hold ends' : 'a host has room';
  return `queued as ${id}: ${whyQueued(queued)}; the service ${does} when ${when} (dogsled cancel ${id} drops it)`;
}

/** What a wait that gave up (its --max, or Ctrl-C) says on stderr: the ticket is still there. */
export function staysQueued(command: string, ticket: string, why: 'deadline' | 'interrupted'): string {
  const how = why === 'deadline' ? '--max reached' : 'interrupted';
  return `dogsled: ${command}: ${how}; ticket ${ticket} stays queued; dogsled cancel ${ticket} drops it`;
}
