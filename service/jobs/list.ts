// The jobs `ps` lists: this host's records (remote ones arrive through the snapshot cache with
// peers), each reconciled first so a job whose wrapper died shows as lost instead of running forever,
// and each with a derived state. Oldest first, so the newest job is the last line, next to the prompt.

import { jobState } from '../core/job-status.js';
import { messageOf } from '../errors.js';
import type { StateIO } from '../state/io.js';
import { type JobRecord, listJobRecords } from '../state/job-records.js';
import { reconcileJob, WRAPPER_LOST } from './reconcile.js';

/** `lost`: ended by the reconciler because its wrapper died without recording how the job ended. */
export type JobViewState = 'created' | 'running' | 'ended' | 'lost';

export type JobView = JobRecord & { state: JobViewState };

export interface JobList {
  jobs: JobView[];
  /** One line per record that could not be read or reconciled; the others are still listed. */
  warnings: string[];
}

export function viewState(record: JobRecord): JobViewState {
  if (record.ended_ms !== null && record.reason === WRAPPER_LOST) return 'lost';
  return jobState(record);
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
