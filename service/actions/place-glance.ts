// The lean `place` (cli/hot/place-lean.ts): its common case, a reservation on this host alone with
// room and no ticket waiting (hosts/reserve-glance.ts), under the same deadline and owner as
// placeRequest (place.ts); undefined, with nothing written, when the full placement must answer.

import { MAX_DEFAULT_MS } from '../core/placement/budget.js';
import { glanceReserve } from '../hosts/reserve-glance.js';
import type { Placed } from '../hosts/reserve-room.js';
import type { HostIO } from '../state/io.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import { Deadline } from '../time/deadline.js';

export async function glancePlace(io: HostIO): Promise<Placed | undefined> {
  // `place` without --max: the default budget, from the process's start.
  const deadline = Deadline.fromProcessStart(MAX_DEFAULT_MS);
  const owner = callerPane(io.env);
  return deadline.step('placement', 'routine', (signal) => glanceReserve({ ...io, signal }, owner));
}
