// `dogsled stop JOB|TICKET [--json]`: asks the job to stop and kills its process group, here or on
// the peer that runs it (service/actions/stop.ts, which the MCP stop tool calls too). Stopping a job
// that already ended, or whose group is already gone, is not an error: the result says what
// happened, as one line or as the record with --json. A ticket still queued is refused with a
// pointer to `cancel`: stop acts on what runs, cancel on what waits (as the spec keeps them). A
// failed or cancelled ticket has nothing running: that is said, and is no error.

import { stopJobRef } from '../../service/actions/stop.js';
import type { CliContext } from '../context.js';
import { lazyHostIO } from '../io.js';
import { renderStopOutcome } from '../render/jobs-human.js';

export interface StopFlags {
  json?: boolean;
}

export async function stopCommand(ref: string, flags: StopFlags, ctx: CliContext): Promise<number> {
  const outcome = await stopJobRef(lazyHostIO(ctx), ref);
  if (outcome.kind === 'settled') {
    const { ticket } = outcome;
    ctx.out(
      flags.json ? `${JSON.stringify(ticket, null, 2)}\n` : `${ticket.id} ${outcome.why}: nothing runs\n`,
    );
    return 0;
  }
  ctx.out(flags.json ? `${JSON.stringify(outcome.record, null, 2)}\n` : `${renderStopOutcome(outcome)}\n`);
  return 0;
}
