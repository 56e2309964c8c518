// `dogsled cancel TICKET [--json]`: cancels a pending ticket (service/actions/cancel.ts) and prints it.
// Any other state is refused in one line (exit 2): an admitted job is stopped with `stop`.

import { cancelPending } from '../../service/actions/cancel.js';
import type { CliContext } from '../context.js';
import { ownerText, ticketWhat } from '../render/status-work.js';

export interface CancelFlags {
  json?: boolean;
}

export async function cancelCommand(id: string, flags: CancelFlags, ctx: CliContext): Promise<number> {
  const cancelled = await cancelPending(ctx, id);
  if (flags.json) ctx.out(`${JSON.stringify(cancelled)}\n`);
  else {
    const what = ticketWhat(cancelled);
    ctx.out(`cancelled ${cancelled.id}: ${what} (owner ${ownerText(cancelled.owner)})\n`);
  }
  return 0;
}
