// `items --json [--owner PANE]` in its common case, as a bundle of its own that loads no zod and no
// commander: items.json and queue.json read once each and checked by hand
// (service/actions/items-glance.ts), printed as the full command prints them (commands/items.ts).
// A file in doubt, an empty --owner or the table form returns NOT_ANSWERED before anything is
// printed, and dispatch.ts runs the full command line, which answers (and quarantines) as before.

import { glanceOwnedWork } from '../../service/actions/items-glance.js';
import { leanEntry } from './entry.js';

export const run = leanEntry('items', async (flags: { owner?: string; json?: boolean }, ctx) => {
  if (flags.json !== true) return undefined;
  const work = glanceOwnedWork(ctx, flags.owner);
  return work === undefined ? undefined : `${JSON.stringify(work)}\n`;
});
