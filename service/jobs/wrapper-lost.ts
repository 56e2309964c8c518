// Whether a job's exec wrapper died without writing its end: the reconciler's verdict
// (reconcile.ts), a file of its own so the lean `ps` (actions/ps-glance.ts) asks it without the
// record store the reconciler writes through.

import type { JobRecord } from '../core/jobs/job-types.js';
import { processAlive } from '../process/process-table.js';

/** True when the record started, has not ended, and its wrapper is no longer the process it named. */
export function wrapperLost(record: JobRecord): boolean {
  if (record.ended_ms !== null || record.started_ms === null) return false;
  // A started record without a wrapper pid gives nothing to judge by: it is left to its writer.
  if (record.wrapper_pid === null || record.wrapper_pid === undefined) return false;
  return !processAlive(record.wrapper_pid, record.wrapper_start);
}
