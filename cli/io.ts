// HostIO from the command line's context: the context (already the service's ProcessIO) with
// config.toml loaded, for the commands that judge hosts or run work here. Commands that never read
// the policy (exec and the job commands) pass the context itself and never load the config module.

import { loadConfig } from '../service/state/config/config.js';
import type { HostIO } from '../service/state/io.js';
import type { CliContext } from './context.js';

export async function hostIO(ctx: CliContext): Promise<HostIO> {
  const config = await loadConfig(ctx.config.path, ctx.config.explicit, ctx.home);
  const { env, home, now, warn, paths } = ctx;
  return { paths, now, warn, env, home, config };
}
