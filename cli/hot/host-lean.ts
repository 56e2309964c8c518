// `host snapshot`, which a caller without a service of its own runs here through a fresh ssh for
// every peer read, in its common case as a bundle of its own that loads no zod and no commander:
// this host's service up, its files read once each and checked by hand
// (service/actions/snapshot-glance.ts), printed as the full verb prints it (commands/host.ts). Any
// other case or verb returns NOT_ANSWERED before anything is written, and hot/dispatch.ts runs the full
// command line, which answers as before.

import { glanceSnapshotReply } from '../../service/actions/snapshot-glance.js';
import { hostIO } from '../io.js';
import { leanEntry } from './entry.js';

export const run = leanEntry('host', async (flags: { words?: unknown }, ctx) => {
  const { words } = flags;
  if (!Array.isArray(words) || words.length !== 1 || words[0] !== 'snapshot') return undefined;
  const reply = glanceSnapshotReply(await hostIO(ctx));
  return reply === undefined ? undefined : `${JSON.stringify(reply)}\n`;
});
