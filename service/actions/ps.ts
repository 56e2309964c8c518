// `ps [--all]`, from every front end: this host's jobs (each reconciled first, so a job whose wrapper
// died shows as lost) and every enabled peer's, as its cached snapshot lists them, oldest first.
// This host's jobs need no host policy: a config.toml that does not load hides only the peers'
// jobs, and is one of the listing's warnings.

import { messageOf } from '../core/common/errors.js';
import { readPeerJobs } from '../hosts/peer-jobs.js';
import { type JobList, listJobs, mergeJobs, peerJobs } from '../jobs/job-list.js';
import type { LazyHostIO } from './verb-io.js';

export type { JobList, JobView } from '../jobs/job-list.js';

export async function listJobsEverywhere(io: LazyHostIO, request: { all: boolean }): Promise<JobList> {
  const list = await listJobs(io, request);
  const remote = await io
    .hostIO()
    .then((host) => readPeerJobs(host))
    .catch((error: unknown) => {
      list.warnings.push(`peers' jobs: ${messageOf(error)}`);
      return [];
    });
  return { jobs: mergeJobs(list.jobs, peerJobs(remote, request)), warnings: list.warnings };
}
