// The jobs `ps` lists: this host's records, each reconciled first so a job whose wrapper died shows
// as lost instead of running forever, and each peer's jobs as its cached snapshot lists them (the
// peer reconciles its own), each with a derived state. Oldest first, so the newest job is the last
// line, next to the prompt.

import { messageOf } from '../core/common/errors.js';
import { type JobViewState, viewState } from '../core/jobs/job-status.js';
import type { JobRecord, JobSummary } from '../core/jobs/job-types.js';
import type { StateIO } from '../state/io.js';
import { listJobRecords } from '../state/records/job-records.js';
import { reconcileJob } from './reconcile.js';

export type JobView = JobRecord & { state: JobViewState };

export interface JobList {
  jobs: JobView[];
  /** One line per record that could not be read or reconciled; the others are still listed. */
  warnings: string[];
}

/** Jobs that have not ended, or with `all` every job, oldest first. */
export async function listJobs(io: StateIO, options: { all?: boolean } = {}): Promise<JobList> {
  const listing = await listJobRecords(io.paths);
  const warnings = listing.problems.map((problem) => `job record ${problem.path}: ${problem.reason}`);
  const jobs: JobView[] = [];
  for (const found of listing.records) {
    let record = found;
    try {
      record = await reconcileJob(io, found);
    } catch (error) {
      warnings.push(`job ${found.id}: cannot reconcile: ${messageOf(error)}`);
    }
    if (options.all || record.ended_ms === null) jobs.push({ ...record, state: viewState(record) });
  }
  return { jobs, warnings };
}

/** The jobs of cached peer snapshots, named by their peer's id; `all` keeps the ended ones. */
export function peerJobs(
  entries: ReadonlyArray<{ id: string; jobs: readonly JobSummary[] }>,
  options: { all?: boolean } = {},
): JobView[] {
  const jobs: JobView[] = [];
  for (const { id, jobs: listed } of entries) {
    for (const summary of listed) {
      const record: JobRecord = { version: 1, ...summary, host: id };
      if (options.all || record.ended_ms === null) jobs.push({ ...record, state: viewState(record) });
    }
  }
  return jobs;
}

/** Local and peer jobs together, oldest first. */
export function mergeJobs(local: readonly JobView[], peers: readonly JobView[]): JobView[] {
  return [...local, ...peers].sort((a, b) => a.created_ms - b.created_ms);
}
