// The reconciler for jobs whose exec wrapper died without writing the end (SIGKILL, OOM, a reboot):
// such a record would say "running" forever and hang every waiter. ps, wait, logs --follow and the
// service call reconcileJob; it ends the record as `wrapper lost` and kills what is left of the job's
// process group. Both checks are identity checks (pid + start time, service/process/process-table.ts).

import { WRAPPER_LOST } from '../core/jobs/job-status.js';
import type { JobRecord } from '../core/jobs/job-types.js';
import type { StateIO } from '../state/io.js';
import { updateJobRecord } from '../state/records/job-records.js';
import { signalGroup } from './proc-identity.js';
import { wrapperLost } from './wrapper-lost.js';

/**
 * The record, finalized when its wrapper is gone: ended_ms = now, reason `wrapper lost`, no exit code
 * or signal (nobody saw how the command ended). The verdict is taken again under the record's lock,
 * so a wrapper that wrote its own end meanwhile keeps it. What remains of the group gets SIGKILL:
 * nothing is left to capture its output or record its end, and exec would have killed it too.
 */
export async function reconcileJob(io: StateIO, record: JobRecord): Promise<JobRecord> {
  // The cheap check first, so healthy jobs never take their record's lock.
  if (!wrapperLost(record)) return record;
  const settled = await updateJobRecord(io, record.id, (current) => {
    if (current === undefined || !wrapperLost(current)) return { result: current };
    const next: JobRecord = {
      ...current,
      ended_ms: Math.max(io.now(), current.started_ms ?? current.created_ms),
      exit_code: null,
      signal: null,
      reason: WRAPPER_LOST,
    };
    return { result: next, next };
  });
  if (settled === undefined) return record;
  if (settled.reason === WRAPPER_LOST && settled.pgid !== null && settled.pgid !== undefined)
    await signalGroup(settled.pgid, settled.pgid_start, 'SIGKILL');
  return settled;
}
