// `dogsled items [--owner PANE] [--json]`: this host's items and queued tickets as `{items,queue}`,
// both filtered to one owner pane with --owner (service/actions/items.ts).

import { readOwnedWork } from '../../service/actions/items.js';
import type { CliContext } from '../context.js';
import { renderItems } from '../render/status-work.js';

export interface ItemsFlags {
  owner?: string;
  json?: boolean;
}

export async function itemsCommand(flags: ItemsFlags, ctx: CliContext): Promise<number> {
  const report = await readOwnedWork(ctx, flags.owner);
  if (flags.json) ctx.out(`${JSON.stringify(report)}\n`);
  else ctx.out(`${renderItems(report.items, report.queue, ctx.now()).join('\n')}\n`);
  return 0;
}
