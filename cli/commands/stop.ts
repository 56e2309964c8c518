// `dogsled stop JOB|TICKET [--json]`: asks the job to stop and kills its process group (stop.ts in
// service/jobs holds how). Stopping a job that already ended, or whose group is already gone, is not
// an error: the result says what happened, as one line or as the record with --json. A ticket is
// followed to its job. A ticket still queued is refused with a pointer to `cancel`: stop acts on
// what runs, cancel on what waits (as the spec keeps them), so a stop never withdraws queued work
// by surprise. A failed or cancelled ticket has nothing running: that is said, and is no error.

import { DogsledError } from '../../service/errors.js';
import { noJob, resolveJobRef, untilRecorded } from '../../service/jobs/job-ref.js';
import { STOP_GRACE_MS, stopJob } from '../../service/jobs/stop.js';
import type { CliContext } from '../context.js';
import { stateIO } from '../io.js';
import { renderStopOutcome } from '../render/jobs-human.js';

export interface StopFlags {
  json?: boolean;
}

export async function stopCommand(ref: string, flags: StopFlags, ctx: CliContext): Promise<number> {
  const io = stateIO(ctx);
  const graceMs = graceFromEnv(ctx.env);
  let target = await resolveJobRef(io, ref);
  if (target.kind === 'waiting' && target.ticket.state === 'pending') {
    const id = target.ticket.id;
    throw new DogsledError(
      `stop: ticket ${id} is still queued, nothing runs yet: cancel it with dogsled cancel ${id}`,
    );
  }
  // Being admitted: its job may already run; wait (up to the grace) for its record to exist.
  if (target.kind === 'waiting') {
    const id = target.ticket.id;
    target = (await untilRecorded(io, target.ticket, graceMs)) ?? target;
    if (target.kind === 'waiting')
      throw new DogsledError(`stop: ticket ${id} is being admitted: its job is not recorded yet, try again`);
  }
  if (target.kind === 'placement') throw noJob('stop', target);
  if (target.kind === 'settled') {
    const { ticket } = target;
    ctx.out(
      flags.json ? `${JSON.stringify(ticket, null, 2)}\n` : `${ticket.id} ${target.why}: nothing runs\n`,
    );
    return 0;
  }
  const outcome = await stopJob(io, target.id, { graceMs });
  ctx.out(flags.json ? `${JSON.stringify(outcome.record, null, 2)}\n` : `${renderStopOutcome(outcome)}\n`);
  return 0;
}

/**
 * The SIGTERM grace, shortened only in tests: DOGSLED_TEST_STOP_GRACE_MS counts only together with
 * DOGSLED_TEST=1 (like the test clock), so a stray variable never changes a real stop.
 */
function graceFromEnv(env: NodeJS.ProcessEnv): number {
  const text = env.DOGSLED_TEST_STOP_GRACE_MS;
  if (env.DOGSLED_TEST !== '1' || text === undefined || text === '') return STOP_GRACE_MS;
  if (!/^\d+$/.test(text)) throw new DogsledError(`DOGSLED_TEST_STOP_GRACE_MS: "${text}" is not an integer`);
  return Number(text);
}
