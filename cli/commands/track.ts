// `dogsled track HOST PANE --name N [--json]`: makes an existing pane one of the caller's children
// (service/actions/track.ts) and prints its item.

import { trackPane } from '../../service/actions/track.js';
import { DogsledError } from '../../service/core/common/errors.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

export interface TrackFlags {
  name?: string;
  json?: boolean;
}

export async function trackCommand(
  host: string,
  pane: string,
  flags: TrackFlags,
  ctx: CliContext,
): Promise<number> {
  if (flags.name === undefined) throw new DogsledError('--name is required');
  const item = await trackPane(await hostIO(ctx), host, pane, flags.name);
  if (flags.json) ctx.out(`${JSON.stringify(item)}\n`);
  else
    ctx.out(
      `tracking ${item.name} (${item.harness ?? 'no agent yet'}) in pane ${item.pane} on ${item.host}: ${item.id}\n`,
    );
  return 0;
}
