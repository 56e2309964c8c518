// The one place the command line makes the service's dependency vocabulary (service/state/io.ts)
// from its context: StateIO for commands that only read and write state (jobs, tickets), HostIO,
// which also loads config.toml, for those that judge hosts or run things here.

import { loadConfig } from '../service/state/config.js';
import type { HostIO, StateIO } from '../service/state/io.js';
import { statePaths } from '../service/state/paths.js';
import type { CliContext } from './context.js';

export function stateIO(ctx: CliContext): StateIO {
  return { paths: statePaths(ctx.stateDir), now: ctx.now, warn: ctx.warn };
}

export async function hostIO(ctx: CliContext): Promise<HostIO> {
  const config = await loadConfig(ctx.config.path, ctx.config.explicit, ctx.home);
  return { ...stateIO(ctx), config, env: ctx.env, home: ctx.home };
}
