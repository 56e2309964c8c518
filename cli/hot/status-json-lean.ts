// `status --json` in its common case, as a bundle of its own that loads no zod, no schema and no
// commander: every file read once and checked by hand, and every peer of config.toml's list from a
// fresh cache entry (service/actions/status-json-glance.ts, glanceStatus), printed as the full command
// prints it (commands/status.ts). A peer due a read, or anything else it doubts, returns NOT_ANSWERED
// before anything is written, and hot/dispatch.ts runs the status bundle, which answers as before.

import { glanceStatus } from '../../service/actions/status-json-glance.js';
import { hostIO } from '../io.js';
import { leanEntry } from './entry.js';

export const run = leanEntry('status', async (_flags, ctx) => {
  const report = await glanceStatus(await hostIO(ctx));
  return report === undefined ? undefined : `${JSON.stringify(report)}\n`;
});
