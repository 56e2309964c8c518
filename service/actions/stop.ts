// `stop JOB|TICKET`, from every front end: the job named by its id or by the ticket a queued run
// printed, on this host (service/jobs/by-ref.ts: SIGTERM, then the group's SIGKILL after the grace)
// or on the peer that runs it (`host stop` there, found through the owner's item or the peer cache).
// A job that already ended, or a failed or cancelled ticket, is no error: the outcome says so. A
// ticket still queued is refused with a pointer to `cancel`.

import { type StopRefOutcome, stopRef } from '../jobs/by-ref.js';
import { remoteJobOf, stopRemoteJob } from '../jobs/peer-job.js';
import type { LazyHostIO } from './verb-io.js';

export type { StopOutcome } from '../jobs/job-stop.js';
export type { StopRefOutcome };

export async function stopJobRef(io: LazyHostIO, ref: string): Promise<StopRefOutcome> {
  const remote = await remoteJobOf(io, ref, io.hostIO);
  return remote ? stopRemoteJob(remote.io, remote.peer, ref) : stopRef(io, ref);
}
