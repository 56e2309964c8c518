// Shared plumbing of the commands: the host policy and state paths every command reads. Flags are
// parsed in flags.ts.

import type { HostsIO } from '../service/hosts/local.js';
import { type Config, loadConfig } from '../service/state/config.js';
import { statePaths } from '../service/state/paths.js';
import type { CliContext } from './context.js';

export interface CommandIO extends HostsIO {
  config: Config;
}

export async function commandIO(ctx: CliContext): Promise<CommandIO> {
  const config = await loadConfig(ctx.config.path, ctx.config.explicit, ctx.home);
  return { config, policy: config, paths: statePaths(ctx.stateDir), now: ctx.now, warn: ctx.warn };
}
