// The lean `place` (cli/hot/place-lean.ts): its common case, a reservation on this host alone with
// room and no ticket waiting (hosts/reserve-glance.ts), under the same deadline and owner as
// placeRequest (place.ts); undefined, with nothing written, when the full placement must answer.

import { MAX_DEFAULT_MS } from '../core/placement/budget.js';
import { glanceReserveNow, glanceReserveWaiting, WAIT_FOR_LOCKS } from '../hosts/reserve-glance.js';
import type { Placed } from '../hosts/reserve-room.js';
import type { HostIO } from '../state/io.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import { Deadline } from '../time/deadline.js';

export async function glancePlace(io: HostIO): Promise<Placed | undefined> {
  // `place` without --max: the default budget, from the process's start.
  const deadline = Deadline.fromProcessStart(MAX_DEFAULT_MS);
  const owner = callerPane(io.env);
  // The quick attempt never waits (its locks are taken at once or not at all, its reads are
  // synchronous), so no step's timer could fire before it ends: it runs outside one, which spares
  // every place the timer, the AbortController and their code. A wait runs under the step as before,
  // and a budget already spent goes straight to the step, which says so.
  if (deadline.allowance('routine') > 0) {
    const now = await glanceReserveNow(io, owner);
    if (now !== WAIT_FOR_LOCKS) return now;
  }
  return deadline.step('placement', 'routine', (signal) => glanceReserveWaiting({ ...io, signal }, owner));
}
