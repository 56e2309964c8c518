// `dogsled wait JOB|TICKET [--max D]`: waits for the job's final record, here or on its peer
// (service/actions/wait.ts), and exits with its status (exit code, else 128 + signal, else 125:
// ended without a status). A queued ticket is waited for until the service admits it, under the
// same deadline. At the deadline (default 30m from the command's start) it prints `still running`
// and exits 124; a wait never cancels or signals its job.

import { Deadline } from '../../service/actions/call-budget.js';
import { waitJobRef } from '../../service/actions/wait.js';
import { EXIT } from '../../service/core/common/exit-codes.js';
import { exitStatusOf } from '../../service/core/jobs/job-status.js';
import type { CliContext } from '../context.js';
import { maxFlag } from '../flags.js';
import { lazyHostIO } from '../io.js';
import { untilStopped } from '../stop-signal.js';

export interface WaitFlags {
  max?: string;
}

export async function waitCommand(ref: string, flags: WaitFlags, ctx: CliContext): Promise<number> {
  const deadline = Deadline.fromProcessStart(maxFlag(flags.max)).signal();
  const outcome = await waitJobRef(lazyHostIO(ctx, { untilStopped }), ref, deadline);
  if (outcome.kind === 'interrupted') return EXIT.interrupted;
  if (outcome.kind === 'ended') return exitStatusOf(outcome.record);
  ctx.out('still running\n');
  return EXIT.stillRunning;
}
