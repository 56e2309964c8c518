// Refuses a job whose command cannot run before anything is created: a name must be an executable
// file on PATH, and a path (anything with a slash, relative to the job's directory) an executable
// file. This checks the local host only; a remote host's exec reports its own `not found`.

import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { DogsledError } from '../errors.js';
import { oneLine } from '../state/quarantine.js';

/** Where `command` resolves to from `cwd`, or undefined when it cannot run. */
export async function findExecutable(command: string, cwd: string, path: string | undefined) {
  if (command === '') return undefined;
  if (command.includes('/')) {
    const file = resolve(cwd, command);
    return (await isExecutableFile(file)) ? file : undefined;
  }
  // An empty PATH entry means the current directory, as in a POSIX shell.
  for (const dir of (path ?? '').split(delimiter)) {
    const base = dir === '' ? cwd : isAbsolute(dir) ? dir : resolve(cwd, dir);
    const file = join(base, command);
    if (await isExecutableFile(file)) return file;
  }
  return undefined;
}

/** Throws `<prefix>command not found: foo` (exit 2) when the job's command cannot run here. */
export async function checkCommand(
  command: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  prefix = 'run: ',
): Promise<void> {
  const [name] = command;
  if (name === undefined || (await findExecutable(name, cwd, env.PATH)) === undefined) {
    throw new DogsledError(`${prefix}command not found: ${oneLine(name ?? '')}`);
  }
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
