// Where a command name resolves on a PATH, as a POSIX shell would look it up: a name with a slash is
// a path (relative to `cwd`), else the first executable regular file in a PATH directory (an empty
// entry is the current directory). Stats and access checks only; nothing is run.

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Where `command` resolves to from `cwd`, or undefined when it cannot run. */
export async function findExecutable(
  command: string,
  cwd: string,
  path: string | undefined,
): Promise<string | undefined> {
  if (command === '') return undefined;
  if (command.includes('/')) {
    const file = resolve(cwd, command);
    return isExecutableFile(file) ? file : undefined;
  }
  for (const dir of (path ?? '').split(delimiter)) {
    const base = dir === '' ? cwd : isAbsolute(dir) ? dir : resolve(cwd, dir);
    const file = join(base, command);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

// Synchronous: a stat per PATH directory, each answered from the dentry cache, where the promise
// API built (and threw away) an ENOENT error with its stack for every directory that lacks the name.
function isExecutableFile(file: string): boolean {
  try {
    if (statSync(file, { throwIfNoEntry: false })?.isFile() !== true) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
