// Starting a long-lived process and letting it go: the leader of a new session (so closing the
// caller's terminal does not end it), stdin from /dev/null, output to a descriptor the caller opened
// (a log) or nowhere, and unref'd, so the caller may exit first. A standby is started the same way
// ahead of time, with its stdin a pipe on which the caller later says `go`, or closes it to send it
// away (the caller's exit closes it too). A warm process (launchWarm) is a standby that serves many
// possible callers: its stdin is the same leash, and one line on its stdout says it was taken; the
// socket it serves them on may be handed to it made already, as its descriptor 3
// (listening-socket.ts).
// The short-lived runner is run.ts.

import type { Socket } from 'node:net';
import { SpawnError } from './run-process.js';

/** node:child_process is loaded on the first spawn: most commands start no child. */
const childProcess = () => process.getBuiltinModule('node:child_process');

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
  const child = childProcess().spawn(file, args, {
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

/** A process started ahead of its work, waiting for `go` on its stdin. */
export interface Standby {
  /** The leader's pid, which is also its group id. */
  readonly pid: number;
  /** Says `go`; false when the process is gone (then nothing was handed over). */
  go(): Promise<boolean>;
  /** Sends it away without work (closes its stdin); nothing after `go`. */
  cancel(): void;
}

/** As launchDetached, with stdin a pipe for `go`; rejects with SpawnError. */
export async function launchStandby(argv: readonly string[], options: LaunchOptions): Promise<Standby> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('launchStandby: argv is empty');
  const output = options.outputFd ?? 'ignore';
  const child = childProcess().spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['pipe', output, output],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) => reject(new SpawnError(file, error.code, error)));
  });
  let gone = false;
  child.once('exit', () => {
    gone = true;
  });
  child.unref();
  const stdin = child.stdin as Socket;
  // Neither the pipe nor the process keeps the caller alive; a write to a gone process is EPIPE.
  stdin.unref();
  stdin.on('error', () => {
    gone = true;
  });
  return {
    pid: child.pid as number,
    go: () =>
      new Promise<boolean>((resolve) => {
        if (gone || stdin.writableEnded) return resolve(false);
        stdin.end('go\n', () => resolve(!gone));
        stdin.once('error', () => resolve(false));
      }),
    cancel: () => {
      if (!stdin.writableEnded) stdin.end();
    },
  };
}

/** A process kept ready for work it is handed some other way (a socket), leashed by its stdin. */
export interface Warm {
  readonly pid: number;
  /** Resolves `taken` on the first bytes it writes, `gone` when its stdout closes first (it exited). */
  readonly taken: Promise<'taken' | 'gone'>;
  /** Resolves once it has exited. */
  readonly exited: Promise<void>;
  /** Closes its stdin: unclaimed, it leaves; taken, it no longer listens to it. */
  cancel(): void;
  /** Says the one line a process started held waits for on its stdin before its Node starts. */
  release(): void;
}

/** A descriptor handed to a warm process, and how to close this process's copy of it. */
export interface HandedSocket {
  readonly fd: number;
  close(): void;
}

/**
 * As launchStandby, with stdout a pipe it reports being taken on; rejects with SpawnError. `socket`
 * (a listening one) becomes its descriptor 3 (WARM_SOCKET_FD), and this process's copy is closed
 * right after the spawn, before the event loop runs again: listening here, it could accept a launch.
 */
export async function launchWarm(
  argv: readonly string[],
  options: LaunchOptions & { socket?: HandedSocket | undefined },
): Promise<Warm> {
  const [file, ...args] = argv;
  if (file === undefined) {
    options.socket?.close();
    throw new Error('launchWarm: argv is empty');
  }
  const output = options.outputFd ?? 'ignore';
  const { socket } = options;
  let child: ReturnType<ReturnType<typeof childProcess>['spawn']>;
  try {
    child = childProcess().spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: socket === undefined ? ['pipe', 'pipe', output] : ['pipe', 'pipe', output, socket.fd],
    });
  } finally {
    socket?.close();
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) => reject(new SpawnError(file, error.code, error)));
  });
  child.unref();
  const stdin = child.stdin as Socket;
  const stdout = child.stdout as Socket;
  stdin.unref();
  stdout.unref();
  stdin.on('error', () => {});
  const taken = new Promise<'taken' | 'gone'>((resolve) => {
    stdout.on('data', () => resolve('taken'));
    stdout.once('close', () => resolve('gone'));
    stdout.once('error', () => resolve('gone'));
  });
  // Once taken, what it writes is of no interest; reading on keeps its pipe from filling.
  stdout.resume();
  let released = false;
  return {
    pid: child.pid as number,
    taken,
    exited,
    cancel: () => {
      if (!stdin.writableEnded) stdin.end();
    },
    release: () => {
      if (released || stdin.writableEnded) return;
      released = true;
      stdin.write('\n');
    },
  };
}
