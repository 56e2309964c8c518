// The lean `host snapshot`, which every peer read of a caller without a service runs through a fresh
// ssh and a Node start here: its common case (this host's service up, host.json there) from the
// files read once each and checked by hand (hosts/local-glance.ts), the jobs host.json lists checked
// as JobSummarySchema would. undefined sends the caller to the full verb (host-verbs/snapshot-verb.ts),
// which answers every other case and quarantines a file it finds bad.

import { isInt, isIntOrNull, isRecord, isStringOrNull, nonEmpty } from '../core/common/shape.js';
import type { JobSummary } from '../core/jobs/job-types.js';
import type { HostSnapshotReply } from '../host-verbs/snapshot-verb.js';
import { glanceLocalFacts } from '../hosts/local-glance.js';
import { localView } from '../hosts/local-view.js';
import type { HostIO } from '../state/io.js';

export function glanceSnapshotReply(io: HostIO): HostSnapshotReply | undefined {
  const facts = glanceLocalFacts(io);
  if (facts === undefined || facts.snapshot === null) return undefined;
  const jobs: unknown = facts.snapshot.jobs ?? [];
  if (!Array.isArray(jobs) || !jobs.every(isJobSummary)) return undefined;
  const now = io.now();
  return { version: 1, now_ms: now, host: localView(facts, io.config, now), jobs };
}

const optionalMeasure = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  (typeof value === 'number' && Number.isFinite(value) && value >= 0);

/** The fields JobSummarySchema checks (JobRecordSchema's, picked), with the same bounds. */
function isJobSummary(job: unknown): job is JobSummary {
  return (
    isRecord(job) &&
    nonEmpty(job.id) &&
    Array.isArray(job.command) &&
    job.command.length > 0 &&
    job.command.every((word: unknown) => typeof word === 'string') &&
    typeof job.cwd === 'string' &&
    typeof job.host === 'string' &&
    isStringOrNull(job.owner) &&
    isStringOrNull(job.pane) &&
    isInt(job.created_ms) &&
    isIntOrNull(job.started_ms) &&
    isIntOrNull(job.ended_ms) &&
    isIntOrNull(job.exit_code) &&
    isStringOrNull(job.signal) &&
    isStringOrNull(job.reason) &&
    optionalMeasure(job.peak_rss_bytes) &&
    optionalMeasure(job.cpu_ms)
  );
}
