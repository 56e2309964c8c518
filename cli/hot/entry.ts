// What a hot bundle (dist/hot/NAME.mjs, built by scripts/build.mjs) runs once main.ts has parsed a
// fast command's flags: the command through runCommand, its errors printed by report.ts, its exit
// status returned. The bundle carries its own copy of everything it uses, so no error leaves it:
// main.ts's copy of DogsledError is not this one.

import { mark } from '../../service/actions/timing-marks.js';
import { runCommand } from '../command.js';
import { type CliContext, contextFromProcess } from '../context.js';
import { reportError } from '../report.js';

/** The parsed flags (with the global --config), as cli/fast-path.ts gives them. */
export type HotRun = (parsed: Record<string, unknown>) => Promise<number>;

export function hotEntry<F>(name: string, action: (flags: F, ctx: CliContext) => Promise<number>): HotRun {
  return async (parsed) => {
    mark('loaded');
    const { config, ...flags } = parsed;
    try {
      return await runCommand(name, () =>
        action(flags as F, contextFromProcess({ config: typeof config === 'string' ? config : undefined })),
      );
    } catch (error) {
      return reportError(error, (text) => process.stderr.write(text));
    }
  };
}
