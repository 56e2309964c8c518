// `dogsled place [--host ID] [--json] [--wait] [--max D]`: reserve room on the best host for
// reservation_ttl_ms. The reservation counts against that host's headroom until its TTL; nothing is
// started. When every host is full (or earlier tickets wait for the same hosts), the request becomes
// a FIFO ticket: `{"queued":true,"ticket":…}` and exit 1, or with --wait the placement once the
// service admits it. With --json, stdout holds exactly one document (output-schemas.ts).

import { formatAge } from '../../service/core/duration.js';
import { EXIT } from '../../service/core/exit-codes.js';
import { findHost } from '../../service/core/placement.js';
import { DogsledError } from '../../service/errors.js';
import { LOCAL_HOST, readReservations } from '../../service/hosts/local.js';
import { Deadline } from '../../service/jobs/deadline.js';
import { submitWork } from '../../service/jobs/submit.js';
import type { Reservation } from '../../service/state/schemas.js';
import { callerPane } from '../../service/terminal/herdr-env.js';
import type { CliContext } from '../context.js';
import { hostFlag, maxFlag } from '../flags.js';
import { commandIO } from '../io.js';
import type { Placed, Queued, StillQueued } from '../output-schemas.js';
import { awaitTicket } from '../ticket-wait.js';

export interface PlaceFlags {
  json?: boolean;
  host?: string;
  wait?: boolean;
  max?: string;
  branch?: string;
  base?: string;
  repo?: string;
}

interface Where {
  id: string;
  label: string;
}

export async function placeCommand(flags: PlaceFlags, ctx: CliContext): Promise<number> {
  if (flags.branch !== undefined || flags.base !== undefined || flags.repo !== undefined) {
    throw new DogsledError('--branch, --base and --repo are not available in this build yet (worktrees)');
  }
  const deadline = Deadline.fromProcessStart(maxFlag(flags.max));
  const pin = hostFlag(flags.host);
  const io = await commandIO(ctx);
  const owner = callerPane(ctx.env);
  // The signal reaches every write: a placement that ran out of time writes nothing afterwards.
  const outcome = await deadline.step('placement', 'routine', (signal) =>
    submitWork({ ...io, signal }, { request: null, pin, owner, waiting: Boolean(flags.wait) }, 'place'),
  );
  if (outcome.kind === 'placed') {
    printPlaced(ctx, flags, { id: outcome.host, label: outcome.label }, outcome.reservation);
    return EXIT.ok;
  }
  const { ticket } = outcome;
  const queued: Queued = { queued: true, ticket: ticket.id };
  const why =
    outcome.behind > 0
      ? `${outcome.behind} earlier ticket(s) wait for the same host`
      : `no host has room: ${outcome.refusals.map((r) => `${r.label}: ${r.reason.join('; ')}`).join(' | ')}`;
  ctx.warn(`dogsled: place: queued as ${ticket.id}: ${why}`);
  // The spec prints the ticket; a --json wait keeps stdout for its one final document.
  if (!(flags.wait && flags.json)) ctx.out(`${JSON.stringify(queued)}\n`);
  if (!flags.wait) return EXIT.queued;
  const admitted = await awaitTicket(io, ticket.id, deadline);
  if (admitted === undefined) {
    const still: StillQueued = { ...queued, still_running: true };
    ctx.out(flags.json ? `${JSON.stringify(still)}\n` : 'still running\n');
    ctx.warn(`dogsled: place: --max reached; ticket ${ticket.id} is still pending`);
    return EXIT.stillRunning;
  }
  const reservations = await readReservations(io);
  const reservation = reservations.find((r) => r.id === admitted.reservation);
  if (reservation === undefined || admitted.host === null) {
    throw new DogsledError(`ticket ${ticket.id} was admitted, but its reservation has already expired`);
  }
  const label = findHost([LOCAL_HOST], admitted.host)?.label ?? admitted.host;
  printPlaced(ctx, flags, { id: admitted.host, label }, reservation, ticket.id);
  return EXIT.ok;
}

/** The reservation as one JSON document, or as one line for people. */
function printPlaced(
  ctx: CliContext,
  flags: PlaceFlags,
  host: Where,
  reservation: Reservation,
  ticket?: string,
) {
  if (flags.json) {
    const doc: Placed = {
      placed: true,
      host: host.id,
      label: host.label,
      reservation: reservation.id,
      expires_ms: reservation.expires_ms,
      ...(ticket === undefined ? {} : { ticket }),
    };
    ctx.out(`${JSON.stringify(doc)}\n`);
  } else {
    const ttl = formatAge(reservation.expires_ms - reservation.created_ms);
    ctx.out(`reserved ${host.label} (${host.id}) for ${ttl}: ${reservation.id}\n`);
  }
}
