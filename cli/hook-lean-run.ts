// What the lean hook bundles share (cli/hot/hook-lean.ts: inbox, gate and state;
// cli/hot/hook-context-lean.ts: context): the hook's flags checked, its context built, its budget
// armed, its answer printed and stdin read as the full hook reads it. Each bundle brings only its
// own answers, so a Stop's bundle carries no config reader and no renderer, and the prompt
// context's no lock and no cleanup request: a hot bundle's start-up grows with everything in it,
// used or not (its code cache is read and its functions set up on every run).

import { mark } from '../service/actions/timing-marks.js';
import type { ProcessIO } from '../service/actions/verb-io.js';
import { type CliContext, contextFromProcess } from './context.js';
import { type CheckedHook, checkedHook, type HookFlags, hookBudget } from './hook-flags.js';
import { readHookStdin } from './hook-stdin.js';
import type { HotRun } from './hot/entry.js';
import { NOT_ANSWERED } from './not-answered.js';
import { writeAll } from './stdout.js';

/** What to print (null: nothing), or undefined for the full hook. Writes only what it answers. */
export type LeanHook = (
  hook: CheckedHook,
  io: ProcessIO,
  ctx: CliContext,
) => Promise<string | null | undefined>;

export function leanHookRun(lean: LeanHook): HotRun {
  return async (parsed) => {
    mark('loaded');
    const { config, ...flags } = parsed;
    let hook: CheckedHook;
    try {
      hook = checkedHook(flags as unknown as HookFlags);
    } catch {
      // Registered wrongly: the full hook logs it to hooks.log.
      return NOT_ANSWERED;
    }
    const ctx = contextFromProcess({ config: typeof config === 'string' ? config : undefined });
    // In tmux every hook but the gate reports the agent's state (service/inbox/hook-state.ts).
    if (ctx.env.TMUX && hook.sub !== 'gate') return NOT_ANSWERED;
    // A hook prints nothing but its answer: warnings (a failed cleanup request) stay off every stream.
    const io: ProcessIO = { env: ctx.env, home: ctx.home, now: ctx.now, paths: ctx.paths, warn: () => {} };
    const stop = hookBudget();
    try {
      let answer: string | undefined;
      try {
        const found = await lean(hook, io, ctx);
        if (found === undefined) return NOT_ANSWERED;
        answer = found ?? undefined;
      } catch {
        return NOT_ANSWERED;
      }
      mark('answered');
      // Read as the full hook reads it, so the harness sees its hook take what it sent.
      await readHookStdin();
      // A reader gone, or stdout closed: silent, as every hook failure is.
      if (answer !== undefined) writeAll(answer);
      return 0;
    } catch {
      return 0;
    } finally {
      stop();
    }
  };
}
