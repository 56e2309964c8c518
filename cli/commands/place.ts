// `dogsled place [--host ID] [--json] [--wait] [--max D]`: reserve room on the best host for
// reservation_ttl_ms. The reservation counts against that host's headroom until its TTL; nothing is
// started. When every host is full (or earlier tickets wait for the same hosts), the request becomes
// a FIFO ticket: `{"queued":true,"ticket":…}` and exit 1, or with --wait the placement once the
// service admits it.

import { MAX_DEFAULT_MS } from '../../service/core/budget.js';
import { formatAge, parseDuration } from '../../service/core/duration.js';
import { findHost } from '../../service/core/placement.js';
import { DogsledError } from '../../service/errors.js';
import { LOCAL_HOST, readReservations } from '../../service/hosts/local.js';
import type { PlaceResult } from '../../service/hosts/view.js';
import { Deadline } from '../../service/jobs/deadline.js';
import { submitWork } from '../../service/jobs/submit.js';
import { waitForTicket } from '../../service/jobs/ticket-wait.js';
import type { CliContext } from '../context.js';
import { commandIO } from '../io.js';

export interface PlaceFlags {
  json?: boolean;
  host?: string;
  wait?: boolean;
  max?: string;
  branch?: string;
  base?: string;
  repo?: string;
}

/** Exit status of a wait that reached its deadline (spec, "Commands"). */
const STILL_RUNNING = 124;

export async function placeCommand(flags: PlaceFlags, ctx: CliContext): Promise<number> {
  if (flags.branch !== undefined || flags.base !== undefined || flags.repo !== undefined) {
    throw new DogsledError(
      'place: --branch, --base and --repo are not available in this build yet (worktrees)',
    );
  }
  const deadline = new Deadline(maxFlag(flags.max));
  const io = await commandIO(ctx);
  const owner = ctx.env.HERDR_PANE_ID || null;
  // The signal reaches every write: a placement that ran out of time writes nothing afterwards.
  const outcome = await deadline.step('placement', 'routine', (signal) =>
    submitWork(
      { ...io, signal },
      { request: null, pin: flags.host ?? null, owner, waiting: Boolean(flags.wait) },
      'place',
    ),
  );
  if (outcome.kind === 'placed') {
    printPlaced(ctx, flags, outcome.host, outcome.label, outcome.reservation);
    return 0;
  }
  const { ticket } = outcome;
  ctx.out(`${JSON.stringify({ queued: true, ticket: ticket.id })}\n`);
  const why =
    outcome.behind > 0
      ? `${outcome.behind} earlier ticket(s) wait for the same host`
      : `no host has room: ${outcome.refusals.map((r) => `${r.label}: ${r.reason.join('; ')}`).join(' | ')}`;
  ctx.warn(`dogsled: place: queued as ${ticket.id}: ${why}`);
  if (!flags.wait) return 1;
  const signal = AbortSignal.timeout(deadline.remaining());
  let settled: Awaited<ReturnType<typeof waitForTicket>>;
  try {
    settled = await waitForTicket(io, ticket.id, { signal });
  } catch (error) {
    if (!signal.aborted) throw error;
    ctx.out('still running\n');
    ctx.warn(`dogsled: place: --max reached; ticket ${ticket.id} is still pending`);
    return STILL_RUNNING;
  }
  if (settled.state === 'failed') {
    throw new DogsledError(`place: ticket ${ticket.id} failed: ${settled.error ?? 'no reason given'}`);
  }
  if (settled.state === 'cancelled') throw new DogsledError(`place: ticket ${ticket.id} was cancelled`);
  const reservations = await readReservations(io);
  const reservation = reservations.find((r) => r.id === settled.reservation);
  if (reservation === undefined || settled.host === null) {
    throw new DogsledError(
      `place: ticket ${ticket.id} was admitted, but its reservation has already expired`,
    );
  }
  const label = findHost([LOCAL_HOST], settled.host)?.label ?? settled.host;
  printPlaced(ctx, flags, settled.host, label, reservation);
  return 0;
}

function printPlaced(
  ctx: CliContext,
  flags: PlaceFlags,
  host: string,
  label: string,
  reservation: { id: string; created_ms: number; expires_ms: number },
): void {
  if (flags.json) {
    const doc: PlaceResult = {
      placed: true,
      host,
      label,
      reservation: reservation.id,
      expires_ms: reservation.expires_ms,
    };
    ctx.out(`${JSON.stringify(doc)}\n`);
  } else {
    const ttl = formatAge(reservation.expires_ms - reservation.created_ms);
    ctx.out(`reserved ${label} (${host}) for ${ttl}: ${reservation.id}\n`);
  }
}

function maxFlag(text: string | undefined): number {
  if (text === undefined) return MAX_DEFAULT_MS;
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new DogsledError(`place: --max: ${parsed.error}`);
  if (parsed.ms === 0) throw new DogsledError('place: --max: must be longer than 0');
  return parsed.ms;
}
