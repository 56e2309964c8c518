// `place [--json]` in its common case, as a bundle of its own that loads no zod and no commander: a
// reservation on this host alone, with room and no ticket waiting (service/actions/place-glance.ts),
// printed as the full command prints it (render/placed.ts). Any other case (a flag it does not
// take, a peer, a ticket that may be ahead, no room, a file in doubt) returns NOT_ANSWERED before
// anything is written, and dispatch.ts runs the place bundle, which answers it as before.

import { glancePlace } from '../../service/actions/place-glance.js';
import { mark } from '../../service/actions/timing-marks.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { runCommand } from '../command.js';
import { contextFromProcess } from '../context.js';
import { hostIO } from '../io.js';
import { NOT_ANSWERED } from '../not-answered.js';
import { placedText } from '../render/placed.js';
import { reportError } from '../report.js';
import type { HotRun } from './entry.js';

export const run: HotRun = async (parsed) => {
  mark('loaded');
  const { config, json, ...others } = parsed;
  if (Object.keys(others).length > 0) return NOT_ANSWERED;
  const ctx = contextFromProcess({ config: typeof config === 'string' ? config : undefined });
  try {
    return await runCommand('place', async () => {
      let placed: Awaited<ReturnType<typeof glancePlace>>;
      try {
        placed = await glancePlace(await hostIO(ctx));
      } catch (error) {
        // A lock held past its bound, the deadline: the full path would meet them too, and say so.
        if (error instanceof DogsledError) throw error;
        return NOT_ANSWERED;
      }
      if (placed === undefined) return NOT_ANSWERED;
      ctx.out(placedText(json === true, placed));
      return 0;
    });
  } catch (error) {
    return reportError(error, (message) => process.stderr.write(message));
  }
};
