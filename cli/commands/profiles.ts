// `dogsled profiles [--json]`: the Pi profiles of this host (~/.config/dogsled/profiles), usable and
// broken alike; a broken one is listed with its reason and is not an error of the listing.

import { profilesReport } from '../../service/actions/profiles-action.js';
import type { CliContext } from '../context.js';
import { renderProfiles } from '../render/profiles-human.js';

export interface ProfilesFlags {
  json?: boolean;
}

/** Width for the listing when stdout is not a terminal. */
const PIPE_WIDTH = 160;

export async function profilesCommand(flags: ProfilesFlags, ctx: CliContext): Promise<number> {
  const report = await profilesReport(ctx.home);
  if (flags.json) {
    ctx.out(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  // A terminal that reports no size (0 columns) gets 80.
  const width = ctx.stdoutIsTTY ? process.stdout.columns || 80 : PIPE_WIDTH;
  ctx.out(`${renderProfiles(report, width).join('\n')}\n`);
  return 0;
}
