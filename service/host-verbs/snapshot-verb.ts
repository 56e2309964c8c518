// `dogsled host snapshot`: this host as `status --json` shows it for the local host (its snapshot,
// whether its service holds the lock, live reservations, headroom under its own policy), with the
// host's clock, so a caller can judge the snapshot's age without trusting its own clock, and the
// host's job records from its snapshot (`ps --all` of a peer reads them through the peer cache).

import type { JobSummary } from '../core/jobs/job-types.js';
import { localView, readLocalFacts } from '../hosts/local-facts.js';
import type { HostView } from '../hosts/view.js';
import { noArguments, type VerbIO, type VerbResult } from './verb-table.js';

export interface HostSnapshotReply {
  version: 1;
  /** This host's clock when it answered. */
  now_ms: number;
  /** Seen from this host: `id` and `label` are `local`; the caller names it. */
  host: HostView;
  /** The jobs host.json lists (ended ones for 24 hours). */
  jobs: JobSummary[];
}

export async function snapshotVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  noArguments('snapshot', args);
  const facts = await readLocalFacts(io);
  const now = io.now();
  const value: HostSnapshotReply = {
    version: 1,
    now_ms: now,
    host: localView(facts, io.config, now),
    jobs: facts.snapshot?.jobs ?? [],
  };
  return { value };
}
