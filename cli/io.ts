// Shared plumbing of the commands: the host policy and state paths every command reads, and
// parsing of numeric flags into one-line errors.

import { DogsledError } from '../service/errors.js';
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

/** `--interval 10`, `--interval 0.5`: a positive number of seconds, returned in milliseconds. */
export function parseSeconds(flag: string, text: string): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !Number.isFinite(value) || value <= 0) {
    throw new DogsledError(`${flag}: expected a positive number of seconds, got "${text}"`);
  }
  const ms = Math.round(value * 1000);
  if (ms < 1) throw new DogsledError(`${flag}: "${text}" is shorter than a millisecond`);
  return ms;
}
