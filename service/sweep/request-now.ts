// The stop gate's cleanup request on the lean hook's path (every Stop of every agent): the request
// written at once, without waiting (state/engine/update-now.ts), then the poke. Where it cannot be
// written so (the lock held, a file in doubt, a failure), the full request (request.ts) runs, which
// waits for the lock, quarantines and warns.

import { nextSweepRequest } from '../core/cleanup/sweep-rule.js';
import { SweepRequestCheck } from '../state/checks/sweep-request-check.js';
import { updateNow } from '../state/engine/update-now.js';
import type { StateIO } from '../state/io.js';
import { STATE_FILE_MODE } from '../state/paths.js';
import { wakeSweeper } from './sweep-wake.js';

/**
 * Asks for a cleanup pass as request.ts's askForSweep does. The quick write is not synced: a request
 * lost to a power failure costs nothing (the sweep only tidies, and the agents' next Stops ask again),
 * while a sync is a tenth of the hook's time; the rename still gives every reader a whole record.
 */
export async function askForSweepNow(io: StateIO, by: string): Promise<void> {
  const written = updateNow(
    io.paths.sweepRequest,
    SweepRequestCheck,
    { mode: STATE_FILE_MODE, durable: false },
    (current) => ({ result: undefined, next: nextSweepRequest(current, by, io.now()) }),
  );
  if (written === undefined) {
    const { askForSweep } = await import('./request.js');
    return askForSweep(io, by);
  }
  await wakeSweeper(io.paths.sweepSock);
}
