// `dogsled sidebar [--owner PANE]`: the work board app in this terminal (sidebar/app.ts, the only
// module that loads blessed). The owner is --owner, else $DOGSLED_OWNER (set by `board --open` on
// the pane it docks), else the pane a Herdr plugin pane was opened beside.

import { herdrConfigPath, sidebarOwner } from '../../service/actions/sidebar.js';
import { DogsledError } from '../../service/core/common/errors.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

export interface SidebarFlags {
  owner?: string;
}

export async function sidebarCommand(flags: SidebarFlags, ctx: CliContext): Promise<number> {
  const owner = sidebarOwner(ctx.env, flags.owner);
  if (!process.stdout.isTTY || !process.stdin.isTTY) throw new DogsledError('needs a terminal');
  const io = await hostIO(ctx);
  const testing = ctx.env.DOGSLED_TEST === '1';
  const { runSidebar } = await import('../../sidebar/app.js');
  return runSidebar({
    io,
    owner,
    entry: process.argv[1] ?? '',
    fixtureHosts: testing ? ctx.env.DOGSLED_TEST_SIDEBAR_HOSTS : undefined,
    herdrConfig: herdrConfigPath(ctx.env, ctx.home),
    noColor: 'NO_COLOR' in ctx.env,
  });
}
