// `dogsled sidebar [--owner PANE]`: the work board app in this terminal (sidebar/app.ts, the only
// module that loads blessed). The owner is --owner, else $DOGSLED_OWNER (set by `board --open` on
// the pane it docks), else the pane a Herdr plugin pane was opened beside.

import { DogsledError } from '../../service/core/common/errors.js';
import { testKnob } from '../../service/core/common/test-knobs.js';
import { herdrConfigPath, pluginContextPane } from '../../service/terminal/herdr/herdr-env.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

export interface SidebarFlags {
  owner?: string;
}

export async function sidebarCommand(flags: SidebarFlags, ctx: CliContext): Promise<number> {
  const owner = flags.owner || ctx.env.DOGSLED_OWNER || pluginContextPane(ctx.env);
  if (!owner) throw new DogsledError('no owner: give --owner PANE (board --open sets it)');
  if (!process.stdout.isTTY || !process.stdin.isTTY) throw new DogsledError('needs a terminal');
  const io = await hostIO(ctx);
  const { runSidebar } = await import('../../sidebar/app.js');
  return runSidebar({
    io,
    owner,
    entry: process.argv[1] ?? '',
    fixtureHosts: testKnob(ctx.env, 'SIDEBAR_HOSTS'),
    herdrConfig: herdrConfigPath(ctx.env, ctx.home),
    noColor: 'NO_COLOR' in ctx.env,
  });
}
