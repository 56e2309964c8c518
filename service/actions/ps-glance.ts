// The lean `ps --json` (cli/hot/ps-lean.ts): this host alone (no peer whose jobs the full `ps` would
// read, hosts/local-glance.ts), its job records read once each and checked whole by hand
// (state/records/jobs-glance.ts), none of them a job whose wrapper died (which the full `ps`
// reconciles, writing its end). undefined in every other case, before anything is written, and
// listJobsEverywhere (ps.ts) answers.

import { viewState } from '../core/jobs/job-status.js';
import { glanceAlone } from '../hosts/local-glance.js';
import type { JobView } from '../jobs/job-list.js';
import { wrapperLost } from '../jobs/wrapper-lost.js';
import type { HostIO } from '../state/io.js';
import { glanceJobRecords } from '../state/records/jobs-glance.js';

export async function glanceJobs(io: HostIO, request: { all: boolean }): Promise<JobView[] | undefined> {
  if (!(await glanceAlone(io))) return undefined;
  // An ended record is never one whose wrapper was lost: the records not listed need no more look.
  const records = glanceJobRecords(io.paths, (record) => request.all || record.ended_ms === null);
  if (records === undefined || records.some(wrapperLost)) return undefined;
  return records.map((record) => ({ ...record, state: viewState(record) }));
}
