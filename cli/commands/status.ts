// `dogsled status [--json|--line|--brief] [--watch]`: reads the local snapshot, the service lock
// and placements, never probes. Every form but --line also reads items.json and queue.json for the
// open items and pending tickets; --line skips them (and their schemas) to start fast. Peers join
// this report when the SSH transport lands.

import { setTimeout as sleep } from 'node:timers/promises';
import { DogsledError } from '../../service/errors.js';
import { readLocalHost } from '../../service/hosts/local.js';
import type { HostView, StatusReport } from '../../service/hosts/view.js';
import { mark } from '../../service/timing.js';
import type { CliContext } from '../context.js';
import { intervalFlag } from '../flags.js';
import { type CommandIO, commandIO } from '../io.js';
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
  const [hosts, work] = await Promise.all([readHosts(io), readOpenWork(io)]);
  return { version: 1, now_ms: io.now(), hosts, ...work };
}

async function readHosts(io: CommandIO): Promise<HostView[]> {
  return [await readLocalHost(io)];
}

/** Open items and unsettled tickets (FIFO); loaded on demand so `--line` never parses their schemas. */
async function readOpenWork(io: CommandIO): Promise<Pick<StatusReport, 'items' | 'queue'>> {
  const [{ readItems, readQueue }, { isSettled }] = await Promise.all([
    import('../../service/state/work.js'),
    import('../../service/core/tickets.js'),
  ]);
  const [items, queue] = await Promise.all([readItems(io), readQueue(io)]);
  return {
    items: items.items.filter((item) => item.closed_ms === null),
    queue: queue.tickets.filter((ticket) => !isSettled(ticket)).sort((a, b) => a.created_ms - b.created_ms),
  };
}

export async function statusCommand(flags: StatusFlags, ctx: CliContext): Promise<number> {
  const forms = [flags.json, flags.line, flags.brief].filter(Boolean).length;
  if (forms > 1) throw new DogsledError('status: choose one of --json, --line and --brief');
  const intervalMs = intervalFlag(flags.interval);
  const io = await commandIO(ctx);
  mark('config');
  if (!flags.watch) {
    ctx.out(await snapshotText(io, flags, ctx));
    return 0;
  }
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

async function snapshotText(io: CommandIO, flags: StatusFlags, ctx: CliContext): Promise<string> {
  if (flags.line) return `${renderStatusLine(await readHosts(io))}\n`;
  const report = await readStatus(io);
  if (flags.json) return `${JSON.stringify(report)}\n`;
  if (flags.brief) {
    const counts = { openItems: report.items.length, pendingTickets: report.queue.length };
    return `${renderBrief(report.hosts, counts).join('\n')}\n`;
  }
  const { renderWork } = await import('../render/status-work.js');
  const lines = [
    ...renderStatus(report, paint(ctx.color)),
    '',
    ...renderWork(report.items, report.queue, report.now_ms),
  ];
  return `${lines.join('\n')}\n`;
}
