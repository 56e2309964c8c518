// HostIO from a front end's ProcessIO: the same IO with config.toml loaded (defaults for a missing
// file), for the verbs that judge hosts or run work here. A module of its own, so the verbs that
// never read the policy (exec, and the job verbs on this host's jobs) never load the config reader.

import { loadConfig } from '../state/config/config.js';
import type { HostIO, ProcessIO } from '../state/io.js';

export async function withHostConfig(
  io: ProcessIO,
  config: { path: string; explicit: boolean },
): Promise<HostIO> {
  const loaded = await loadConfig(config.path, config.explicit, io.home);
  const { env, home, now, warn, paths } = io;
  return { paths, now, warn, env, home, config: loaded };
}
