// Waiting for a job to end: read the record until it carries ended_ms. A wait only reads (and
// reconciles a job whose wrapper died, so a lost wrapper never hangs it); it never signals or cancels
// the job, and giving up at a deadline leaves the job running.

import type { JobRecord } from '../core/jobs/job-types.js';
import type { StateIO } from '../state/io.js';
import { readJobRecord } from '../state/records/job-records.js';
import { JobChanges } from './job-file-watch.js';
import { reconcileJob } from './reconcile.js';

export interface WaitOptions {
  /** Aborting it rejects the wait with the signal's reason; the job is untouched. */
  signal?: AbortSignal;
}

/**
 * The record of job `id` once it has ended. An unknown id rejects at once with DogsledError
 * `unknown job "x"`; an aborted `signal` rejects with `signal.reason`.
 */
export async function waitForJob(io: StateIO, id: string, options: WaitOptions = {}): Promise<JobRecord> {
  const { signal } = options;
  let record = await readJobRecord(io.paths, id);
  if (record.ended_ms !== null) return record;
  const changes = new JobChanges(io.paths.jobs, id);
  try {
    for (;;) {
      record = await reconcileJob(io, record);
      if (record.ended_ms !== null) return record;
      signal?.throwIfAborted();
      await changes.next(signal);
      signal?.throwIfAborted();
      record = await readJobRecord(io.paths, id);
      if (record.ended_ms !== null) return record;
    }
  } finally {
    changes.close();
  }
}
