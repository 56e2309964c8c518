// `dogsled status [--json|--line|--brief] [--watch]`: reads the local snapshot, the service lock
// and placements, never probes. Peers join this report when the SSH transport lands.

import { setTimeout as sleep } from 'node:timers/promises';
import { DogsledError } from '../../service/errors.js';
import { readLocalHost } from '../../service/hosts/local.js';
import type { StatusReport } from '../../service/hosts/view.js';
import { mark } from '../../service/timing.js';
import type { CliContext } from '../context.js';
import { type CommandIO, commandIO, parseSeconds } from '../io.js';
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
  interval: string;
}

export async function readStatus(io: CommandIO): Promise<StatusReport> {
  const local = await readLocalHost(io);
  return { version: 1, now_ms: io.now(), hosts: [local] };
}

export async function statusCommand(flags: StatusFlags, ctx: CliContext): Promise<number> {
  const forms = [flags.json, flags.line, flags.brief].filter(Boolean).length;
  if (forms > 1) throw new DogsledError('status: choose one of --json, --line and --brief');
  const intervalMs = parseSeconds('--interval', flags.interval);
  const io = await commandIO(ctx);
  mark('config');
  if (!flags.watch) {
    ctx.out(render(await readStatus(io), flags, ctx));
    return 0;
  }
  await untilStopped(async (signal) => {
    while (!signal.aborted) {
      const text = render(await readStatus(io), flags, ctx);
      // On a terminal each refresh replaces the last; piped, refreshes follow each other, and
      // multi-line forms are separated by a blank line.
      const separated = flags.json || flags.line ? text : `${text}\n`;
      ctx.out(ctx.stdoutIsTTY ? `\x1b[H\x1b[2J${text}` : separated);
      await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    }
  });
  return 0;
}

function render(report: StatusReport, flags: StatusFlags, ctx: CliContext): string {
  if (flags.json) return `${JSON.stringify(report)}\n`;
  if (flags.line) return `${renderStatusLine(report.hosts)}\n`;
  if (flags.brief) return `${renderBrief(report.hosts).join('\n')}\n`;
  return `${renderStatus(report, paint(ctx.color)).join('\n')}\n`;
}
