// `dogsled ps [--all] [--json]`: the jobs that have not ended (--all: also the ended ones), oldest
// first. Records that do not parse are warnings on stderr, never a failure; with --json stdout holds
// only `{"jobs":[...]}`, each record with its derived state.

import { messageOf } from '../../service/core/common/errors.js';
import { readPeerJobs } from '../../service/hosts/peer-jobs.js';
import { listJobs, mergeJobs, peerJobs } from '../../service/jobs/job-list.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';
import { paint } from '../render/color.js';
import { emptyJobsLine, renderJobTable } from '../render/jobs-human.js';

export interface PsFlags {
  all?: boolean;
  json?: boolean;
}

/** Width for the table when stdout is not a terminal: wide enough to read, bounded for logs. */
const PIPE_WIDTH = 160;

export async function psCommand(flags: PsFlags, ctx: CliContext): Promise<number> {
  // Local jobs need no host policy: a broken config.toml must not hide them, only the peers' jobs.
  const list = await listJobs(ctx, { all: flags.all === true });
  const remote = await hostIO(ctx)
    .then((io) => readPeerJobs(io))
    .catch((error: unknown) => {
      list.warnings.push(`peers' jobs: ${messageOf(error)}`);
      return [];
    });
  list.jobs = mergeJobs(list.jobs, peerJobs(remote, { all: flags.all === true }));
  for (const warning of list.warnings) ctx.warn(`dogsled: warning: ${warning}`);
  if (flags.json) {
    ctx.out(`${JSON.stringify({ jobs: list.jobs }, null, 2)}\n`);
    return 0;
  }
  if (list.jobs.length === 0) {
    ctx.out(`${emptyJobsLine(flags.all === true)}\n`);
    return 0;
  }
  const width = ctx.stdoutIsTTY ? (process.stdout.columns ?? 80) : PIPE_WIDTH;
  ctx.out(`${renderJobTable(list.jobs, ctx.now(), width, paint(ctx.color)).join('\n')}\n`);
  return 0;
}
