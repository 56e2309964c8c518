// `place --wait` and `run --wait` on a queued ticket: wait until the service settles it or the
// command's --max deadline ends. A failed or cancelled ticket is the command's error; the deadline
// leaves the ticket pending, since a wait never cancels.

import { DogsledError } from '../service/errors.js';
import type { Deadline } from '../service/jobs/deadline.js';
import { type SettledTicket, waitForTicket } from '../service/jobs/ticket-wait.js';
import type { WorkIO } from '../service/state/work.js';

export type AdmittedTicket = SettledTicket & { state: 'admitted' };

/** The admitted ticket, or undefined when the deadline came first. */
export async function awaitTicket(
  io: WorkIO,
  id: string,
  deadline: Deadline,
): Promise<AdmittedTicket | undefined> {
  const signal = deadline.signal();
  let settled: SettledTicket;
  try {
    settled = await waitForTicket(io, id, { signal });
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
  if (settled.state === 'failed') {
    throw new DogsledError(`ticket ${id} failed: ${settled.error ?? 'no reason given'}`);
  }
  if (settled.state === 'cancelled') throw new DogsledError(`ticket ${id} was cancelled`);
  return settled as AdmittedTicket;
}
