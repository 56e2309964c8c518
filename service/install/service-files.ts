// Where the service's unit lives for this user's service manager, and the unit `service install`
// would write for the dogsled and node that run now: their real paths, the caller's PATH, and the
// locations of state and config the caller's environment names (so the service publishes where
// this CLI reads). mise, when it manages that node, runs it (core/service-unit.ts says why).

import { realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { DogsledError } from '../core/common/errors.js';
import { LAUNCHD_LABEL, type ServiceSpec, SYSTEMD_UNIT, serveArgv } from '../core/install/service-unit.js';
import { findExecutable } from '../process/find-executable.js';
import { selfInvocation } from '../process/self-invocation.js';
import type { ProcessIO } from '../state/io.js';

export type ManagerKind = 'systemd' | 'launchd';

export interface ServiceManagerIO extends ProcessIO {
  platform: NodeJS.Platform;
  /** The argv prefix that runs this dogsled (`[node, dist/dogsled.cjs]`); default: this process's. */
  self?: readonly string[];
}

export function managerOf(platform: NodeJS.Platform): ManagerKind {
  if (platform === 'linux') return 'systemd';
  if (platform === 'darwin') return 'launchd';
  throw new DogsledError(
    `no service manager dogsled knows on ${platform} (systemd on Linux, launchd on macOS)`,
  );
}

/** ~/.config/systemd/user/dogsled.service (XDG_CONFIG_HOME honoured), or ~/Library/LaunchAgents/dev.dogsled.plist. */
export function unitFile(kind: ManagerKind, env: NodeJS.ProcessEnv, home: string): string {
  if (kind === 'launchd') return join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const config =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(config, 'systemd', 'user', SYSTEMD_UNIT);
}

/** Variables that say where dogsled's files are: the service gets the caller's, when set. */
const LOCATIONS = ['DOGSLED_STATE', 'DOGSLED_CONFIG', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME'] as const;

export async function serviceSpec(io: ServiceManagerIO): Promise<ServiceSpec> {
  const [node, entry] = io.self ?? selfInvocation();
  if (node === undefined || entry === undefined) throw new DogsledError('cannot tell which dogsled runs');
  const path = io.env.PATH;
  if (!path) throw new DogsledError('PATH is not set: the service would find no agent to start');
  const mise = (await findExecutable('mise', io.home, path)) ?? null;
  const env: Array<[string, string]> = [['PATH', path]];
  for (const key of LOCATIONS) {
    const value = io.env[key];
    if (value) env.push([key, resolve(value)]);
  }
  return {
    argv: serveArgv({ node: real(node), entry: real(entry), mise }),
    env,
    log: join(io.paths.dir, 'serve.log'),
    home: io.home,
  };
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
