// `dogsled place [--host ID] [--json]`: reserve room on the best host for reservation_ttl_ms. The
// reservation counts against that host's headroom until its TTL; nothing is started.

import { formatAge } from '../../service/core/duration.js';
import { DogsledError } from '../../service/errors.js';
import { placeWork } from '../../service/hosts/place.js';
import type { PlaceResult } from '../../service/hosts/view.js';
import type { CliContext } from '../context.js';
import { commandIO } from '../io.js';

export interface PlaceFlags {
  json?: boolean;
  host?: string;
  branch?: string;
  base?: string;
  repo?: string;
}

export async function placeCommand(flags: PlaceFlags, ctx: CliContext): Promise<number> {
  if (flags.branch !== undefined || flags.base !== undefined || flags.repo !== undefined) {
    throw new DogsledError(
      'place: --branch, --base and --repo are not available in this build yet (worktrees)',
    );
  }
  const io = await commandIO(ctx);
  const outcome = await placeWork(io, { pin: flags.host, owner: ctx.env.HERDR_PANE_ID || null });
  if (outcome.kind === 'full') {
    const why = outcome.refusals.map((r) => `${r.label}: ${r.reason.join('; ')}`).join(' | ');
    const doc: PlaceResult = { placed: false, refusals: outcome.refusals };
    if (flags.json) ctx.out(`${JSON.stringify(doc)}\n`);
    throw new DogsledError(`place: no host has room: ${why}`);
  }
  const { reservation } = outcome;
  if (flags.json) {
    const doc: PlaceResult = {
      placed: true,
      host: outcome.host,
      label: outcome.label,
      reservation: reservation.id,
      expires_ms: reservation.expires_ms,
    };
    ctx.out(`${JSON.stringify(doc)}\n`);
  } else {
    const ttl = formatAge(reservation.expires_ms - reservation.created_ms);
    ctx.out(`reserved ${outcome.label} (${outcome.host}) for ${ttl}: ${reservation.id}\n`);
  }
  return 0;
}
