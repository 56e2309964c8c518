// What a hot bundle (dist/hot/NAME.mjs, built by scripts/build.mjs) runs once hot/dispatch.ts has parsed a
// fast command's flags: the command through runCommand, its errors printed by report.ts, its exit
// status returned. The bundle carries its own copy of everything it uses, so no error leaves it:
// the entry's copy of DogsledError is not this one.

import { mark } from '../../service/actions/timing-marks.js';
import { runCommand } from '../command.js';
import { type CliContext, contextFromProcess } from '../context.js';
import { NOT_ANSWERED } from '../not-answered.js';
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

/**
 * A lean bundle's run (cli/hot/*-lean.ts) for a command that prints one answer: `answer` gives the
 * text, or undefined when the case is not its own; that, and anything it throws (a bad config.toml,
 * an unreadable state dir), is NOT_ANSWERED before anything is printed, and the full command answers
 * and words it.
 */
export function leanEntry<F>(
  name: string,
  answer: (flags: F, ctx: CliContext) => Promise<string | undefined>,
): HotRun {
  return async (parsed) => {
    mark('loaded');
    const { config, ...flags } = parsed;
    let ctx: CliContext;
    let text: string | undefined;
    try {
      ctx = contextFromProcess({ config: typeof config === 'string' ? config : undefined });
      text = await answer(flags as F, ctx);
    } catch {
      return NOT_ANSWERED;
    }
    if (text === undefined) return NOT_ANSWERED;
    mark('answered');
    const { out } = ctx;
    const printed = text;
    try {
      return await runCommand(name, async () => {
        out(printed);
        return 0;
      });
    } catch (error) {
      return reportError(error, (message) => process.stderr.write(message));
    }
  };
}
