// `dogsled items [--owner PANE] [--json]`: this host's items.json and queue.json as `{items,queue}`,
// both filtered to one owner pane with --owner. Reads take no lock: writers replace the files whole.

import { statePaths } from '../../service/state/paths.js';
import { readItems, readQueue, type WorkIO } from '../../service/state/work.js';
import type { Item, Ticket } from '../../service/state/work-schemas.js';
import type { CliContext } from '../context.js';
import { renderItems } from '../render/status-work.js';

export interface ItemsFlags {
  owner?: string;
  json?: boolean;
}

export interface ItemsReport {
  items: Item[];
  queue: Ticket[];
}

export async function itemsCommand(flags: ItemsFlags, ctx: CliContext): Promise<number> {
  const io: WorkIO = { paths: statePaths(ctx.stateDir), now: ctx.now, warn: ctx.warn };
  const [items, queue] = await Promise.all([readItems(io), readQueue(io)]);
  const owned = <T extends { owner: string | null }>(list: readonly T[]): T[] =>
    flags.owner === undefined ? [...list] : list.filter((entry) => entry.owner === flags.owner);
  const report: ItemsReport = { items: owned(items.items), queue: owned(queue.tickets) };
  if (flags.json) ctx.out(`${JSON.stringify(report)}\n`);
  else ctx.out(`${renderItems(report.items, report.queue, io.now()).join('\n')}\n`);
  return 0;
}
