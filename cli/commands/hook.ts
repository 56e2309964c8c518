// `dogsled hook inbox|context|gate|state`: what Claude Code, Codex and Pi run on their own events. The
// JSON their harness sends arrives on stdin (the only command that reads stdin unasked). A hook
// never loops and never breaks its harness: it prints only when it has something new, acknowledges
// exactly what it printed, and on any failure (no state dir, a corrupt inbox, no Herdr, its
// five-second budget spent) exits 0 with no output at all. A flag registered wrongly (an unknown
// --harness or --event, an unknown flag) is a failure like any: one line in the state dir's
// hooks.log, exit 0, nothing printed. The hooks' work is service/actions/hook.ts.

import {
  hookContext,
  hookGate,
  hookInbox,
  hookInput,
  hookProblem,
  hookState,
} from '../../service/actions/hook.js';
import { mark } from '../../service/actions/timing-marks.js';
import type { CliContext } from '../context.js';
import { type CheckedHook, checkedHook, type HookFlags, hookBudget } from '../hook-flags.js';
import { readHookStdin } from '../hook-stdin.js';
import { writeAll } from '../stdout.js';

export { HOOK_SUBCOMMANDS, type HookFlags, type HookSubcommand } from '../hook-flags.js';

/** Resolves once every byte is handed to the OS, so an ack never precedes its output. */
async function print(text: string): Promise<void> {
  writeAll(text);
}

/** A hook prints nothing but its answer: warnings (a quarantined file) stay off every stream. */
function quiet(ctx: CliContext): CliContext {
  // Its descriptors, not its values: the context asks whether stdout is a terminal only when read.
  const descriptors = {
    ...Object.getOwnPropertyDescriptors(ctx),
    warn: { value: () => {}, enumerable: true },
  };
  return Object.defineProperties({}, descriptors) as CliContext;
}

/** Each path loads only its own code: hooks run on every prompt and stop. */
async function runHook(hook: CheckedHook, ctx: CliContext): Promise<void> {
  const io = quiet(ctx);
  const stdin = await readHookStdin();
  mark('stdin');
  if (ctx.env.TMUX && hook.sub !== 'gate') {
    // In tmux the hooks are the only source of the agent's state (service/inbox/hook-state.ts).
    const event = { harness: hook.harness, event: hook.event, stdin, nowMs: ctx.now() };
    await hookState(ctx.env, ctx.stateDir, event).catch(() => {});
  }
  // `hook state` only reports (above); in a Herdr pane Herdr detects the state itself.
  if (hook.sub === 'state') return;
  if (hook.sub === 'gate') {
    const reminder = await hookGate(io);
    if (reminder !== undefined) await print(`${reminder}\n`);
    return;
  }
  const { additionalContext, stopBlock } = await import('../render/hook-output.js');
  if (hook.sub === 'context') {
    const [{ renderHookContext }, { hostIO }] = await Promise.all([
      import('../render/hook-context.js'),
      import('../io.js'),
    ]);
    const context = await hookContext(await hostIO(io), hook.harness, hook.event);
    if (context === undefined) return;
    const text = renderHookContext(context, ctx.now());
    await print(hook.harness === 'pi' ? `${text}\n` : additionalContext(hook.event, text));
    return;
  }
  const input = { stopHookActive: hookInput(stdin)?.stop_hook_active === true };
  await hookInbox(io, { harness: hook.harness, event: hook.event, input }, (text) =>
    print(hook.event === 'Stop' ? stopBlock(text) : additionalContext(hook.event, text)),
  );
  mark('inbox done');
}

export async function hookCommand(flags: HookFlags, ctx: CliContext): Promise<number> {
  let hook: CheckedHook;
  try {
    hook = checkedHook(flags);
  } catch (error) {
    // Registered wrongly: the harness gets the silent success every hook failure gets.
    await hookProblem(ctx.stateDir, (error as Error).message, ctx.now());
    return 0;
  }
  const stop = hookBudget();
  try {
    await runHook(hook, ctx);
  } catch {
    // Hook failures are silent by design (spec: they exit successfully without output).
  } finally {
    stop();
  }
  return 0;
}
