// `ps --json [--all]` in its common case, as a bundle of its own that loads no zod and no commander:
// this host alone, its job records read once each and checked by hand, none to reconcile
// (service/actions/ps-glance.ts), printed as the full command prints them (commands/ps.ts). Any
// other case (a peer, a record in doubt or whose wrapper died, the table form) returns NOT_ANSWERED
// before anything is written, and dispatch.ts runs the full command line, which answers as before.

import { glanceJobs } from '../../service/actions/ps-glance.js';
import { hostIO } from '../io.js';
import { leanEntry } from './entry.js';

export const run = leanEntry('ps', async (flags: { all?: boolean; json?: boolean }, ctx) => {
  if (flags.json !== true) return undefined;
  const jobs = await glanceJobs(await hostIO(ctx), { all: flags.all === true });
  return jobs === undefined ? undefined : `${JSON.stringify({ jobs }, null, 2)}\n`;
});
