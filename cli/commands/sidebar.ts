// `dogsled sidebar [--owner PANE]`: the work board app in this terminal (sidebar/app.ts, the only
// module that loads blessed). The owner is --owner, else $DOGSLED_OWNER (set by `board --open` on
// the pane it docks), else the pane a Herdr plugin pane was opened beside.

import { dirname, join } from 'node:path';
import { herdrConfigPath, sidebarOwner } from '../../service/actions/sidebar.js';
import { mark } from '../../service/actions/timing-marks.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { testKnob } from '../../service/core/common/test-knobs.js';
import type { CliContext } from '../context.js';
import { hostIO } from '../io.js';

/** The sidebar's own theme, beside config.toml: its `[theme]` wins over Herdr's. */
const THEME_FILE = 'theme.toml';

export interface SidebarFlags {
  owner?: string;
}

export async function sidebarCommand(flags: SidebarFlags, ctx: CliContext): Promise<number> {
  const owner = sidebarOwner(ctx.env, flags.owner);
  if (!process.stdout.isTTY || !process.stdin.isTTY) throw new DogsledError('needs a terminal');
  const io = await hostIO(ctx);
  mark('config');
  const fixtureHosts = testKnob(ctx.env, 'SIDEBAR_HOSTS');
  // The state is read while the app loads: the first frame is drawn from it before blessed loads.
  const firstRead = import('../../service/actions/sidebar-state.js')
    .then(({ readSidebarState }) => readSidebarState(io, { owner, fixtureHosts }))
    .then((state) => {
      mark('sidebar first read');
      return state;
    });
  firstRead.catch(() => undefined);
  const { runSidebar } = await import('../../sidebar/app.js');
  mark('sidebar loaded');
  return runSidebar({
    io,
    owner,
    entry: process.argv[1] ?? '',
    fixtureHosts,
    firstRead,
    // Tests lengthen the poll (to see that watching alone refreshes) and the background question, and
    // hold blessed back to compare its first frame with the one written ahead of it.
    pollMs: testKnob(ctx.env, 'SIDEBAR_POLL_MS'),
    backgroundMs: testKnob(ctx.env, 'SIDEBAR_BACKGROUND_MS'),
    holdMs: testKnob(ctx.env, 'SIDEBAR_HOLD_MS'),
    themeFiles: {
      herdr: herdrConfigPath(ctx.env, ctx.home),
      own: join(dirname(ctx.config.path), THEME_FILE),
    },
    noColor: 'NO_COLOR' in ctx.env,
  });
}
