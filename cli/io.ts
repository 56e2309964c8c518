// The actions' IO from the command line's context (already the service's ProcessIO): hostIO adds
// config.toml, for the commands that judge hosts or run work here; lazyHostIO loads it only when the
// verb needs it (a job on a peer). Commands that never read the policy (exec) pass the context itself
// and never load the config module.

import { withHostConfig } from '../service/actions/host-config.js';
import type { HostIO, LazyHostIO, UserIO } from '../service/actions/verb-io.js';
import type { CliContext } from './context.js';

export function hostIO(ctx: CliContext): Promise<HostIO> {
  return withHostConfig(ctx, ctx.config);
}

/** The context's ProcessIO, with `user` (progress, interrupts, output) and the config on demand. */
export function lazyHostIO(ctx: CliContext, user: UserIO = {}): LazyHostIO {
  const { env, home, now, warn, paths } = ctx;
  return { env, home, now, warn, paths, ...user, hostIO: () => hostIO(ctx) };
}
