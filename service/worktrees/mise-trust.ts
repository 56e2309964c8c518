// After a fresh clone for work from another host (spec, "Repository configuration"), the new
// checkout's mise configuration is trusted, and nothing else: each mise config file the clone holds
// is named to `mise trust` by its own path. No mise on PATH, or no mise file, is nothing to do.

import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { SETUP_CAP_MS } from '../core/budget.js';
import { shown } from '../core/visible.js';
import { DogsledError } from '../errors.js';
import { endingOf, runProcess, SpawnError, succeeded } from '../process/run.js';
import { oneLine } from '../state/quarantine.js';

/** The files mise reads as a directory's configuration (the ones that need trust). */
const MISE_FILES = [
  'mise.toml',
  '.mise.toml',
  'mise.local.toml',
  '.mise.local.toml',
  '.config/mise.toml',
  '.config/mise/config.toml',
  'mise/config.toml',
  '.mise/config.toml',
];

export async function trustFreshClone(
  top: string,
  io: { env: NodeJS.ProcessEnv; signal?: AbortSignal | undefined; timeoutMs?: number },
): Promise<string[]> {
  const found: string[] = [];
  for (const name of MISE_FILES) {
    const path = join(top, name);
    if ((await lstat(path).catch(() => undefined))?.isFile()) found.push(path);
  }
  const trusted: string[] = [];
  for (const file of found) {
    const timeoutMs = io.timeoutMs ?? SETUP_CAP_MS;
    let result: Awaited<ReturnType<typeof runProcess>>;
    try {
      result = await runProcess('mise', ['trust', '--', file], {
        env: io.env,
        cwd: top,
        timeoutMs,
        ...(io.signal === undefined ? {} : { signal: io.signal }),
      });
    } catch (error) {
      if (error instanceof SpawnError && error.code === 'ENOENT') return trusted;
      throw error;
    }
    if (!succeeded(result)) {
      const said = oneLine(result.stderr.toString('utf8').trim().split('\n').slice(-1)[0] ?? '');
      throw new DogsledError(
        `mise trust ${shown(file)} ${endingOf(result, timeoutMs)}${said ? `: ${said}` : ''}`,
      );
    }
    trusted.push(file);
  }
  return trusted;
}
