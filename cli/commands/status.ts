// `dogsled status [--json|--line|--brief] [--watch]`: renders what service/actions/status.ts reads
// (the hosts' snapshots, service locks and placements, never a probe; every form but --line also
// the open items and pending tickets), once or every --interval with --watch.

import { readHosts, readStatus } from '../../service/actions/status.js';
import { mark } from '../../service/actions/timing-marks.js';
import type { HostIO } from '../../service/actions/verb-io.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { workCounts } from '../../service/core/placement/work-counts.js';
import type { CliContext } from '../context.js';
import { intervalFlag, STATUS_INTERVAL_DEFAULT } from '../flags.js';
import { hostIO } from '../io.js';
import { paint } from '../render/color.js';
import { renderBrief } from '../render/status-brief.js';
import { renderStatus } from '../render/status-human.js';
import { renderStatusLine } from '../render/status-line.js';
import { untilStopped } from '../stop-signal.js';

export interface StatusFlags {
  json?: boolean;
  line?: boolean;
  brief?: boolean;
  watch?: boolean;
  interval?: string;
}

export async function statusCommand(flags: StatusFlags, ctx: CliContext): Promise<number> {
  const forms = [flags.json, flags.line, flags.brief].filter(Boolean).length;
  if (forms > 1) throw new DogsledError('status: choose one of --json, --line and --brief');
  // Without --watch there is no refresh: an interval would be silently ignored.
  if (flags.interval !== undefined && !flags.watch)
    throw new DogsledError('status: --interval needs --watch');
  const intervalMs = intervalFlag(flags.interval ?? STATUS_INTERVAL_DEFAULT);
  const io = await hostIO(ctx);
  mark('config');
  if (!flags.watch) {
    ctx.out(await snapshotText(io, flags, ctx));
    return 0;
  }
  // Only --watch sleeps: the other forms do not load the module.
  const { setTimeout: sleep } = process.getBuiltinModule(
    'node:timers/promises',
  ) as typeof import('node:timers/promises');
  await untilStopped(async (signal) => {
    while (!signal.aborted) {
      const text = await snapshotText(io, flags, ctx);
      // On a terminal each refresh replaces the last; piped, refreshes follow each other, and
      // multi-line forms are separated by a blank line.
      const separated = flags.json || flags.line ? text : `${text}\n`;
      ctx.out(ctx.stdoutIsTTY ? `\x1b[H\x1b[2J${text}` : separated);
      await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    }
  });
  return 0;
}

async function snapshotText(io: HostIO, flags: StatusFlags, ctx: CliContext): Promise<string> {
  if (flags.line) return `${renderStatusLine(await readHosts(io))}\n`;
  const report = await readStatus(io);
  if (flags.json) return `${JSON.stringify(report)}\n`;
  if (flags.brief) {
    const counts = { ...workCounts(report.items, report.queue), sweep: report.sweep };
    return `${renderBrief(report.hosts, counts).join('\n')}\n`;
  }
  const [{ renderWork }, { renderSweep }] = await Promise.all([
    import('../render/status-work.js'),
    import('../render/status-sweep.js'),
  ]);
  const lines = [
    ...renderStatus(report, paint(ctx.color)),
    ...renderSweep(report.sweep, report.now_ms),
    '',
    ...renderWork(report.items, report.queue, report.now_ms),
  ];
  return `${lines.join('\n')}\n`;
}
