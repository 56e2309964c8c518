// Where Herdr would be: the API socket path by Herdr's own resolution (HERDR_SOCKET_PATH, else the
// HERDR_SESSION socket, else the default under the config dir) and the herdr binary (HERDR_BIN_PATH,
// which Herdr sets in its panes, else PATH). Only stats and access checks; no process is started.

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export interface SocketCandidate {
  path: string;
  /** Which rule named the path: an explicit variable, or Herdr's default location. */
  from: 'HERDR_SOCKET_PATH' | 'HERDR_SESSION' | 'default';
}

/** `$XDG_CONFIG_HOME/herdr`, else `~/.config/herdr` (on macOS too). */
export function herdrConfigDir(env: NodeJS.ProcessEnv, home: string): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && isAbsolute(xdg) ? join(xdg, 'herdr') : join(home, '.config', 'herdr');
}

export function socketCandidate(env: NodeJS.ProcessEnv, home: string): SocketCandidate {
  if (env.HERDR_SOCKET_PATH) return { path: env.HERDR_SOCKET_PATH, from: 'HERDR_SOCKET_PATH' };
  const dir = herdrConfigDir(env, home);
  const session = env.HERDR_SESSION;
  if (session && session !== 'default') {
    return { path: join(dir, 'sessions', session, 'herdr.sock'), from: 'HERDR_SESSION' };
  }
  return { path: join(dir, 'herdr.sock'), from: 'default' };
}

/**
 * Whether something exists at `path` (a stale socket file counts: only a connect can tell).
 * Synchronous, as executable() below: every run, place and status asks it of Herdr's socket.
 */
export async function exists(path: string): Promise<boolean> {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Synchronous: place, status and run look through every PATH directory on each call, and a stat is
 * microseconds where an async one costs a trip through the thread pool; a missing file is the
 * common answer, so it throws nothing.
 */
function executable(path: string): boolean {
  try {
    if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    // Not searchable, not a directory, a symlink loop: not a herdr we can run.
    return false;
  }
}

/** The herdr binary to run, or undefined when there is none. */
export async function findHerdrBinary(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const fromHerdr = env.HERDR_BIN_PATH;
  if (fromHerdr && isAbsolute(fromHerdr) && executable(fromHerdr)) return fromHerdr;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, 'herdr');
    if (executable(candidate)) return candidate;
  }
  return undefined;
}
