// `status --line` and `status --brief` in their common case, as a bundle of its own that loads no
// zod, no schema and no commander: this host alone with its service up, and for the brief its work
// counted from items.json, queue.json and sweep.json read by hand (service/actions/status-glance.ts).
// Any other case, a flag it does not take or a doubt returns NOT_ANSWERED before anything is
// printed, and dispatch.ts runs the status bundle, which answers it as before.

import { glanceBrief, glanceHosts } from '../../service/actions/status-glance.js';
import { mark } from '../../service/actions/timing-marks.js';
import { runCommand } from '../command.js';
import { contextFromProcess } from '../context.js';
import { hostIO } from '../io.js';
import { NOT_ANSWERED } from '../not-answered.js';
import { renderBrief } from '../render/status-brief.js';
import { renderStatusLine } from '../render/status-line.js';
import { reportError } from '../report.js';
import type { HotRun } from './entry.js';

export const run: HotRun = async (parsed) => {
  mark('loaded');
  const { config, line, brief, ...others } = parsed;
  if (Object.keys(others).length > 0 || (line === true) === (brief === true)) return NOT_ANSWERED;
  let text: string;
  let ctx: ReturnType<typeof contextFromProcess>;
  try {
    ctx = contextFromProcess({ config: typeof config === 'string' ? config : undefined });
    const io = await hostIO(ctx);
    mark('config');
    if (line === true) {
      const hosts = await glanceHosts(io);
      if (hosts === undefined) return NOT_ANSWERED;
      text = `${renderStatusLine(hosts)}\n`;
    } else {
      const brief = await glanceBrief(io);
      if (brief === undefined) return NOT_ANSWERED;
      text = `${renderBrief(brief.hosts, brief.counts).join('\n')}\n`;
    }
  } catch {
    // A bad config.toml, an unreadable state dir: the full path words it.
    return NOT_ANSWERED;
  }
  const out = ctx.out;
  try {
    return await runCommand('status', async () => {
      out(text);
      return 0;
    });
  } catch (error) {
    return reportError(error, (message) => process.stderr.write(message));
  }
};
