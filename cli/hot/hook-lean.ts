// `hook inbox|context|gate|state` in their common case, nothing pending, as a bundle of its own that
// loads no zod, no commander and no terminal layer (service/actions/hook-glance.ts): every prompt and
// stop of every agent runs one. What it answers it answers as the full hook (commands/hook.ts) would,
// byte for byte, with the same work done (a Stop's cleanup request); any other case (something to
// deliver or remind of, a reader to register, a pane whose terminal is not remembered, tmux, where
// every hook reports the agent's state, a flag registered wrongly, a file in doubt) returns
// NOT_ANSWERED before anything is written or read from stdin, and main.ts runs the hook bundle.

import { glanceContextHook, glanceGateHook, glanceInboxHook } from '../../service/actions/hook-glance.js';
import { mark } from '../../service/actions/timing-marks.js';
import type { ProcessIO } from '../../service/actions/verb-io.js';
import { contextFromProcess } from '../context.js';
import { type CheckedHook, checkedHook, type HookFlags, hookBudget } from '../hook-flags.js';
import { readHookStdin } from '../hook-stdin.js';
import { NOT_ANSWERED } from '../not-answered.js';
import { writeAll } from '../stdout.js';
import type { HotRun } from './entry.js';

export const run: HotRun = async (parsed) => {
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
      const found = await lean(hook, io, async () => (await import('../io.js')).hostIO(ctx));
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

/** What to print (null: nothing), or undefined for the full hook. Writes only what it answers. */
async function lean(
  hook: CheckedHook,
  io: ProcessIO,
  config: Parameters<typeof glanceContextHook>[1],
): Promise<string | null | undefined> {
  // Outside tmux, where Herdr detects the agent's state itself, `hook state` has nothing to do.
  if (hook.sub === 'state') return null;
  if (hook.sub === 'gate') return glanceGateHook(io);
  if (hook.sub === 'inbox') return glanceInboxHook(io, hook.harness, hook.event);
  const context = await glanceContextHook(io, config, hook.harness, hook.event);
  if (context === null || context === undefined) return context;
  // Loaded here only: the other hooks print nothing.
  const [{ renderHookContext }, { additionalContext }] = await Promise.all([
    import('../render/hook-context.js'),
    import('../render/hook-output.js'),
  ]);
  const text = renderHookContext(context, io.now());
  return hook.harness === 'pi' ? `${text}\n` : additionalContext(hook.event, text);
}
