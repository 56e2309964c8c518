// After a fresh clone for work from another host (spec, "Repository configuration"), dogsled asks
// mise whether the new checkout's configuration is trusted (`mise trust --show` in the checkout,
// which answers `<dir>: trusted|untrusted` for the directory and each parent with a config, a
// directory under HOME written `~/…`), and
// only when mise reports the checkout itself untrusted does it trust that checkout's configuration,
// each mise file by its own path; a parent's configuration is never touched. No mise on PATH, no
// mise file, or a mise that cannot say (an older one without --show) is nothing to do.

import { lstat, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { DogsledError } from '../core/common/errors.js';
import { SETUP_CAP_MS } from '../core/placement/budget.js';
import { quoted, squeezedLine, stripEscapes } from '../core/text/clean.js';
import { endingOf, type RunResult, runProcess, SpawnError, succeeded } from '../process/run-process.js';

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

interface MiseIO {
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
  timeoutMs?: number;
}

/** The checkout's mise files that this trusted: none unless mise reported the checkout untrusted. */
export async function trustFreshClone(top: string, io: MiseIO): Promise<string[]> {
  const found: string[] = [];
  for (const name of MISE_FILES) {
    const path = join(top, name);
    if ((await lstat(path).catch(() => undefined))?.isFile()) found.push(path);
  }
  if (found.length === 0) return [];
  const status = await mise(['trust', '--show'], top, io);
  if (status === undefined || !succeeded(status)) return [];
  if (!(await reportsUntrusted(status.stdout.toString('utf8'), top, io.env.HOME))) return [];
  const trusted: string[] = [];
  for (const file of found) {
    const timeoutMs = io.timeoutMs ?? SETUP_CAP_MS;
    const result = await mise(['trust', '--', file], top, io);
    if (result === undefined) return trusted;
    if (!succeeded(result)) {
      const said = squeezedLine(result.stderr.toString('utf8').trim().split('\n').slice(-1)[0] ?? '');
      throw new DogsledError(
        `mise trust ${quoted(file)} ${endingOf(result, timeoutMs)}${said ? `: ${said}` : ''}`,
      );
    }
    trusted.push(file);
  }
  return trusted;
}

/** mise's answer, or undefined when there is no mise to ask. */
async function mise(args: string[], cwd: string, io: MiseIO): Promise<RunResult | undefined> {
  try {
    return await runProcess('mise', args, {
      env: io.env,
      cwd,
      timeoutMs: io.timeoutMs ?? SETUP_CAP_MS,
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
  } catch (error) {
    if (error instanceof SpawnError && error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether `mise trust --show` names the checkout itself (as given, or its real path) untrusted. */
async function reportsUntrusted(answer: string, top: string, home: string | undefined): Promise<boolean> {
  const bare = (path: string): string => path.replace(/\/+$/, '');
  const names = new Set([bare(top), bare(await realpath(top).catch(() => top))]);
  const expanded = (path: string): string =>
    home !== undefined && home !== '' && (path === '~' || path.startsWith('~/'))
      ? `${bare(home)}${path.slice(1)}`
      : path;
  return stripEscapes(answer)
    .split('\n')
    .some((line) => {
      const match = /^(.*): (trusted|untrusted)\s*$/.exec(line);
      return match !== null && match[2] === 'untrusted' && names.has(bare(expanded(match[1] ?? '')));
    });
}
