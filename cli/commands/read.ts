// `dogsled read TARGET [--host H] [--json]`: a child's or job's newest output and a child's captured
// final reply (service/actions/read.ts), escapes already stripped.

import { readTarget } from '../../service/actions/read.js';
import { formatAge } from '../../service/core/common/duration.js';
import { receiptLine } from '../../service/core/receipts/receipt.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

export interface ReadFlags {
  host?: string;
  json?: boolean;
}

export async function readCommand(target: string, flags: ReadFlags, ctx: CliContext): Promise<number> {
  const report = await readTarget(await hostIO(ctx), target, flags.host ?? null);
  if (flags.json) {
    ctx.out(`${JSON.stringify(report)}\n`);
    return 0;
  }
  const who = report.name ?? report.item ?? report.target;
  const where = report.pane === null ? report.host : `${report.host} ${report.pane}`;
  const lines = [`${report.kind} ${who} (${where})`];
  lines.push(report.output === null ? '(no output to read: the pane is gone)' : report.output);
  if (report.kind === 'agent') {
    lines.push('', report.reply === null ? 'final reply: none yet' : `final reply:\n${report.reply}`);
    if (report.receipt !== null) {
      const { turns, wall_ms: wall } = report.receipt;
      const extra = [turns === null ? null : `${turns} turns`, wall === null ? null : formatAge(wall)];
      const tail = extra.filter(Boolean).join(', ');
      lines.push(`receipt: ${receiptLine(report.receipt)}${tail === '' ? '' : ` (${tail})`}`);
    }
  }
  ctx.out(`${lines.join('\n')}\n`);
  return 0;
}
