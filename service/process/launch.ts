// Starting a long-lived process and letting it go: the leader of a new session (so closing the
// caller's terminal does not end it), stdin from /dev/null, output to a descriptor the caller opened
// (a log) or nowhere, and unref'd, so the caller may exit first. The short-lived runner is run.ts.

import { spawn } from 'node:child_process';
import { SpawnError } from './run.js';

export interface LaunchOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** An open descriptor for stdout and stderr (the caller closes its own copy); absent: /dev/null. */
  outputFd?: number;
}

/** Resolves with the leader's pid (also its group id) once it runs; rejects with SpawnError. */
export async function launchDetached(argv: readonly string[], options: LaunchOptions): Promise<number> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('launchDetached: argv is empty');
  const output = options.outputFd ?? 'ignore';
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', output, output],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) => reject(new SpawnError(file, error.code, error)));
  });
  child.unref();
  return child.pid as number;
}
