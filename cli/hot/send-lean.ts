// `send PANE --message TEXT [--kind K]` in its common case, as a bundle of its own that loads no zod,
// no commander and no terminal layer (service/actions/send-glance.ts): a pane Herdr lists here,
// sent from a pane it lists, every file read once and checked by hand, the record written by the
// full send's own code. Printed as the full command prints it (render/send-line.ts). Any other case
// (a name, a peer, a message file, a pane Herdr must resolve, a file in doubt) returns NOT_ANSWERED
// before anything is written, and dispatch.ts runs the full command line, which answers it as before.

import { glanceSend } from '../../service/actions/send-glance.js';
import { mark } from '../../service/actions/timing-marks.js';
import { runCommand } from '../command.js';
import { contextFromProcess } from '../context.js';
import { NOT_ANSWERED } from '../not-answered.js';
import { sentLine } from '../render/send-line.js';
import { reportError } from '../report.js';
import type { HotRun } from './entry.js';

export const run: HotRun = async (parsed) => {
  mark('loaded');
  const { config, target, message, kind, ...others } = parsed;
  if (Object.keys(others).length > 0 || typeof target !== 'string' || typeof message !== 'string') {
    return NOT_ANSWERED;
  }
  if (kind !== undefined && typeof kind !== 'string') return NOT_ANSWERED;
  let ctx: ReturnType<typeof contextFromProcess>;
  try {
    ctx = contextFromProcess({ config: typeof config === 'string' ? config : undefined });
  } catch {
    // An unreadable state dir or config: the full path words it.
    return NOT_ANSWERED;
  }
  try {
    return await runCommand('send', async () => {
      const sent = await glanceSend(ctx, { target, kind: kind ?? 'message', text: message });
      if (sent === undefined) return NOT_ANSWERED;
      mark('answered');
      ctx.out(`${sentLine(sent)}\n`);
      return 0;
    });
  } catch (error) {
    // An error the full path meets the same way after the same lookups (glanceSend): answered here.
    mark('answered');
    return reportError(error, (text) => process.stderr.write(text));
  }
};
