// `hook context` in its common case, the caller with no work here (service/actions/hook-glance.ts):
// the fleet lines, or nothing, as the full hook prints them; anything else (work of its own, a file
// in doubt, tmux, a flag registered wrongly) is NOT_ANSWERED before anything is read from stdin,
// and dispatch.ts runs the hook bundle. A bundle apart from hook-lean.ts's: only this hook reads the
// host policy (config.toml) and renders, and it writes nothing.

import { glanceContextHook } from '../../service/actions/hook-glance.js';
import { leanHookRun } from '../hook-lean-run.js';
import { hostIO } from '../io.js';
import { renderHookContext } from '../render/hook-context.js';
import { additionalContext } from '../render/hook-output.js';

export const run = leanHookRun(async (hook, io, ctx) => {
  // fast-path.ts sends only `hook context` here: anything else is the full hook's.
  if (hook.sub !== 'context') return undefined;
  const context = await glanceContextHook(io, async () => hostIO(ctx), hook.harness, hook.event);
  if (context === null || context === undefined) return context;
  const text = renderHookContext(context, io.now());
  return hook.harness === 'pi' ? `${text}\n` : additionalContext(hook.event, text);
});
