// How the supervisor starts the job's command: through the process handle node:child_process is
// itself built on (process/process-handle.ts), as node:child_process's spawn would with the same
// options, with stdio of 'ignore' and descriptors. Its answer is read as child_process reads it:
// ENOENT, EACCES, EAGAIN, EMFILE and ENFILE are the command's failure (child_process's 'error'),
// any other refusal is thrown as child_process throws it (`spawn E2BIG`), and the end is the exit
// code or the signal's name, never both. Where the handle is not there as expected, or a string
// holds a NUL, node:child_process itself does it.

import {
  environmentPairs,
  hasNul,
  SPAWN_FAILURES,
  spawnError,
  spawnHandle,
  spawnsByHandle,
} from '../../process/process-handle.js';

export { spawnsByHandle };

export interface SpawnPlan {
  file: string;
  /** The arguments after the file (argv[1]...). */
  args: readonly string[];
  /** Undefined: this process's own (a pane's wrapper starting its supervisor). */
  cwd: string | undefined;
  env: NodeJS.ProcessEnv;
  detached: boolean;
  /** Descriptors 0, 1, 2...: 'ignore' (/dev/null) or a descriptor of this process. */
  stdio: readonly ('ignore' | number)[];
}

/** How the command ended: its exit code, or the signal that ended it. */
export interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export type Spawned =
  | { kind: 'running'; pid: number; ended: Promise<ChildEnd> }
  /** What child_process emits as 'error' for a command that could not start (ENOENT, EACCES...). */
  | { kind: 'failed'; error: NodeJS.ErrnoException };

/** Starts the command; resolves once it runs (or could not start), as child_process's 'spawn' or 'error'. */
export function spawnCommand(plan: SpawnPlan): Promise<Spawned> {
  const envPairs = environmentPairs(plan.env);
  if (envPairs === undefined || hasNul([plan.file, plan.cwd ?? '', ...plan.args])) {
    return spawnByModule(plan);
  }
  const stdio = plan.stdio.map((fd) =>
    fd === 'ignore' ? { type: 'ignore' as const } : { type: 'fd' as const, fd },
  );
  const spawned = spawnHandle({ ...plan, envPairs, stdio });
  if (spawned === undefined) return spawnByModule(plan);
  const { handle, status } = spawned;
  if (status !== 0) {
    const error = spawnError(status, 'spawn');
    if (!SPAWN_FAILURES.has(error.code as string)) return Promise.reject(error);
    const failure = spawnError(status, `spawn ${plan.file}`);
    return Promise.resolve({
      kind: 'failed',
      error: Object.assign(failure, { path: plan.file, spawnargs: [...plan.args] }),
    });
  }
  const ended = new Promise<ChildEnd>((resolve) => {
    handle.onexit = (exitCode, signalCode) => {
      handle.close();
      resolve(
        signalCode ? { code: null, signal: signalCode as NodeJS.Signals } : { code: exitCode, signal: null },
      );
    };
  });
  return Promise.resolve({ kind: 'running', pid: handle.pid, ended });
}

/** The same start through node:child_process. */
function spawnByModule(plan: SpawnPlan): Promise<Spawned> {
  const child = process.getBuiltinModule('node:child_process').spawn(plan.file, [...plan.args], {
    cwd: plan.cwd,
    env: plan.env,
    detached: plan.detached,
    stdio: [...plan.stdio],
  });
  const ended = new Promise<ChildEnd>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return new Promise((resolve) => {
    child.once('spawn', () => resolve({ kind: 'running', pid: child.pid as number, ended }));
    child.once('error', (error) => resolve({ kind: 'failed', error }));
  });
}
