// `dogsled host snapshot`: this host as `status --json` shows it for the local host (its snapshot,
// whether its service holds the lock, live reservations, headroom under its own policy), with the
// host's clock, so a caller can judge the snapshot's age without trusting its own clock.

import { readLocalHost } from '../hosts/local.js';
import type { HostView } from '../hosts/view.js';
import { noArguments, type VerbIO, type VerbResult } from './table.js';

export interface HostSnapshotReply {
  version: 1;
  /** This host's clock when it answered. */
  now_ms: number;
  /** Seen from this host: `id` and `label` are `local`; the caller names it. */
  host: HostView;
}

export async function snapshotVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  noArguments('snapshot', args);
  const host = await readLocalHost(io);
  const value: HostSnapshotReply = { version: 1, now_ms: io.now(), host };
  return { value };
}
