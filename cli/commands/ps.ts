// `dogsled ps [--all] [--json]`: the jobs that have not ended (--all: also the ended ones), this
// host's and its peers' (service/actions/ps.ts), oldest first. Records that do not parse are
// warnings on stderr, never a failure; with --json stdout holds only `{"jobs":[...]}`, each record
// with its derived state.

import { listJobsEverywhere } from '../../service/actions/ps.js';
import type { CliContext } from '../context.js';
import { lazyHostIO } from '../io.js';
import { paint } from '../render/color.js';
import { emptyJobsLine, renderJobTable } from '../render/jobs-human.js';

export interface PsFlags {
  all?: boolean;
  json?: boolean;
}

/** Width for the table when stdout is not a terminal: wide enough to read, bounded for logs. */
const PIPE_WIDTH = 160;

export async function psCommand(flags: PsFlags, ctx: CliContext): Promise<number> {
  const list = await listJobsEverywhere(lazyHostIO(ctx), { all: flags.all === true });
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
