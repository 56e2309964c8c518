// `hook inbox|gate|state` in their common case, nothing pending, as a bundle of its own that loads
// no zod, no commander and no terminal layer (service/actions/hook-glance.ts): every prompt and
// stop of every agent runs one. What it answers it answers as the full hook (commands/hook.ts)
// would, byte for byte, with the same work done (a Stop's cleanup request); any other case
// (something to deliver or remind of, a reader to register, a pane whose terminal is not
// remembered, tmux, where every hook reports the agent's state, a flag registered wrongly, a file
// in doubt) returns NOT_ANSWERED before anything is written or read from stdin, and dispatch.ts runs
// the hook bundle. `hook context` has a lean bundle of its own (hook-context-lean.ts), which
// carries the host policy's reader and the renderer this one does without.

import { glanceGateHook, glanceInboxHook } from '../../service/actions/hook-glance.js';
import { leanHookRun } from '../hook-lean-run.js';

export const run = leanHookRun(async (hook, io) => {
  // Outside tmux, where Herdr detects the agent's state itself, `hook state` has nothing to do.
  if (hook.sub === 'state') return null;
  if (hook.sub === 'gate') return glanceGateHook(io);
  if (hook.sub === 'inbox') return glanceInboxHook(io, hook.harness, hook.event);
  // fast-path.ts sends `hook context` to hook-context-lean: anything else is the full hook's.
  return undefined;
});
