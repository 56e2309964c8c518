// The lean `host snapshot`, which every peer read of a caller without a service runs through a fresh
// ssh and a Node start here: its common case (this host's service up, host.json there) from the
// files read once each and checked by hand (hosts/local-glance.ts), the jobs host.json lists checked
// as JobSummarySchema would. undefined sends the caller to the full verb (host-verbs/snapshot-verb.ts),
// which answers every other case and quarantines a file it finds bad.

import type { HostSnapshotReply } from '../host-verbs/snapshot-verb.js';
import { glanceLocalFacts } from '../hosts/local-glance.js';
import { localView } from '../hosts/local-view.js';
import { isJobSummary } from '../state/checks/job-summary-check.js';
import type { HostIO } from '../state/io.js';

export function glanceSnapshotReply(io: HostIO): HostSnapshotReply | undefined {
  const facts = glanceLocalFacts(io);
  if (facts === undefined || facts.snapshot === null) return undefined;
  const jobs: unknown = facts.snapshot.jobs ?? [];
  if (!Array.isArray(jobs) || !jobs.every(isJobSummary)) return undefined;
  const now = io.now();
  return { version: 1, now_ms: now, host: localView(facts, io.config, now), jobs };
}
