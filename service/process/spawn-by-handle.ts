// run-process.ts's start of a child whose input is nothing, through the handles node:child_process
// is itself built on: the process handle (process-handle.ts) with two pipe handles for stdout and
// stderr (pipe-handle.ts's bindings), read as node:net reads them. Loading node:child_process pulls
// node:net, dgram and every stream module (some 40 modules, 170 page faults and 10 ms of a cold
// `status --json`'s start), and their code, compiled lazily, runs after the fork: on a guest where a
// page fault costs 50 to 100 µs, each page the parent then writes that it shared with the child is
// one. The hooks are what run-process.ts listens to on a ChildProcess: each chunk in arrival order,
// the exit (code or signal's name, never both), and the close once the exit is heard and both pipes
// are at their end. Undefined (nothing started) where a binding is not there as expected or the
// call holds a NUL: run-process.ts uses node:child_process then.

import { type PipeHandle, pipeBinding, streamBinding } from './pipe-handle.js';
import { environmentPairs, hasNul, SPAWN_FAILURES, spawnError, spawnHandle } from './process-handle.js';
import type { OutputStream } from './run-process.js';

export interface ChildHooks {
  data(chunk: Buffer, stream: OutputStream): void;
  exit(code: number | null, signal: NodeJS.Signals | null): void;
  close(): void;
}

/** A child started with its output on two pipes. */
export interface RunningChild {
  pid: number | undefined;
  /** Sends `signal` unless the exit was heard; a child already gone is not an error. */
  kill(signal: NodeJS.Signals): void;
  /** Stops reading both pipes and closes them (a grandchild may still hold their other ends). */
  closeOutput(): void;
}

export type HandleStart =
  | { kind: 'running'; child: RunningChild }
  /** What child_process emits as 'error' (ENOENT, EACCES...): the program could not be started. */
  | { kind: 'failed'; error: NodeJS.ErrnoException };

export interface HandleRun {
  env: NodeJS.ProcessEnv;
  cwd: string | undefined;
  detached: boolean;
}

/**
 * Starts `file args…` with stdin on /dev/null and its output on pipes; throws what child_process's
 * spawn throws for any other refusal (`spawn E2BIG`).
 */
export function startByHandle(
  file: string,
  args: readonly string[],
  run: HandleRun,
  hooks: ChildHooks,
): HandleStart | undefined {
  const pipe = pipeBinding();
  const stream = pipe && streamBinding();
  const envPairs = environmentPairs(run.env);
  if (pipe === undefined || stream === undefined || envPairs === undefined) return undefined;
  if (hasNul([file, run.cwd ?? '', ...args])) return undefined;
  const pipes = {
    stdout: new pipe.Pipe(pipe.constants.SOCKET),
    stderr: new pipe.Pipe(pipe.constants.SOCKET),
  };
  const spawned = spawnHandle({
    file,
    args,
    cwd: run.cwd,
    envPairs,
    detached: run.detached,
    stdio: [
      { type: 'ignore' },
      { type: 'pipe', handle: pipes.stdout },
      { type: 'pipe', handle: pipes.stderr },
    ],
  });
  if (spawned === undefined || spawned.status !== 0) {
    pipes.stdout.close();
    pipes.stderr.close();
    if (spawned === undefined) return undefined;
    const error = spawnError(spawned.status, 'spawn');
    if (!SPAWN_FAILURES.has(error.code as string)) throw error;
    const failure = spawnError(spawned.status, `spawn ${file}`);
    return { kind: 'failed', error: Object.assign(failure, { path: file, spawnargs: [...args] }) };
  }
  const { handle } = spawned;
  const { streamBaseState: state, kReadBytesOrError, kArrayBufferOffset } = stream;
  const open = new Set<OutputStream>(['stdout', 'stderr']);
  let exited = false;
  const closeOne = (name: OutputStream): void => {
    if (!open.delete(name)) return;
    pipes[name].close();
    if (open.size === 0 && exited) hooks.close();
  };
  const read = (name: OutputStream, pipeHandle: PipeHandle): void => {
    // Never assign onread anything but a function: the binding asserts it.
    pipeHandle.onread = (buffer) => {
      const n = state[kReadBytesOrError] ?? -1;
      // Zero is a read that found nothing yet; below zero the end or a failure: the pipe is done.
      if (n === 0) return;
      if (n < 0 || buffer === undefined) return closeOne(name);
      // A buffer of this read's own, as node:net hands it on: kept without a copy.
      hooks.data(Buffer.from(buffer, state[kArrayBufferOffset] ?? 0, n), name);
    };
    let status: number;
    try {
      status = pipeHandle.readStart();
    } catch {
      status = -1;
    }
    if (status !== 0) closeOne(name);
  };
  handle.onexit = (exitCode, signalCode) => {
    exited = true;
    handle.close();
    hooks.exit(signalCode ? null : exitCode, signalCode ? (signalCode as NodeJS.Signals) : null);
    if (open.size === 0) hooks.close();
  };
  read('stdout', pipes.stdout);
  read('stderr', pipes.stderr);
  return {
    kind: 'running',
    child: {
      pid: handle.pid,
      kill: (signal) => {
        if (exited) return;
        const number = process.getBuiltinModule('node:os').constants.signals[signal];
        // A refusal (the child reaped meanwhile) is child_process's `false`: nothing to do.
        if (number !== undefined) handle.kill(number);
      },
      closeOutput: () => {
        for (const name of [...open]) {
          open.delete(name);
          pipes[name].close();
        }
      },
    },
  };
}
