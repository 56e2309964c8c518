// How the supervisor starts the job's command: through the process handle node:child_process is
// itself built on (the `process_wrap` binding), as node:child_process's spawn would with the same
// options. Loading node:child_process costs some 10 M instructions of a Node start's 87 M (it pulls
// node:net, dgram and the streams for the pipes a job never gets); the handle is a call.
//
// What is passed is what child_process passes for `spawn(file, args, { cwd, env, detached, stdio })`
// with stdio of 'ignore' and descriptors: argv with the file first, the environment as KEY=VALUE
// (NODE_V8_COVERAGE carried over as child_process carries it), and its answer is read the same way:
// ENOENT, EACCES, EAGAIN, EMFILE and ENFILE are the command's failure (child_process's 'error'),
// any other refusal is thrown as child_process throws it (`spawn E2BIG`), and the end is the exit
// code or the signal's name, never both. The handle takes those options in one of two ways, as
// the release's child_process passes them: one object (Node 20, 22, and 24 before nodejs/node#63930),
// or positional arguments with the flags packed in a number whose bits the binding exports as
// `constants` (that change's own marker: later 24.x, and 26). Where the binding is missing, not shaped as either, or
// on a Node major the tests do not cover (node-binding.ts: a wrong call aborts the process), or a
// string holds a NUL (which child_process refuses with its own error), node:child_process itself
// does it.

import { nodeBinding } from '../../process/node-binding.js';

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

/** The refusals child_process emits as 'error' rather than throws (internal/child_process.js). */
const FAILURES = new Set(['EACCES', 'EAGAIN', 'EMFILE', 'ENFILE', 'ENOENT']);

interface ProcessHandle {
  spawn(...options: unknown[]): number;
  pid: number;
  onexit: (exitCode: number, signalCode: string) => void;
  close(): void;
}

type ProcessConstructor = new () => ProcessHandle;

/** The binding's Process and how its spawn takes the options. */
interface HandleType {
  Process: ProcessConstructor;
  /** undefined: one options object; else the flag bit for `detached` (positional arguments). */
  detachedFlag: number | undefined;
}

let handleType: HandleType | null | undefined;

/** The binding's Process, or null where it is missing or not shaped as child_process uses it. */
function processHandle(): HandleType | null {
  if (handleType !== undefined) return handleType;
  handleType = null;
  const binding = nodeBinding('process_wrap');
  const Process = binding?.Process as ProcessConstructor | undefined;
  const proto = typeof Process === 'function' ? (Process.prototype as Partial<ProcessHandle>) : undefined;
  if (Process === undefined || typeof proto?.spawn !== 'function' || typeof proto.close !== 'function') {
    return handleType;
  }
  const constants = binding?.constants as { kProcessFlagDetached?: unknown } | undefined;
  if (constants === undefined) handleType = { Process, detachedFlag: undefined };
  else if (typeof constants.kProcessFlagDetached === 'number') {
    handleType = { Process, detachedFlag: constants.kProcessFlagDetached };
  }
  return handleType;
}

/** Whether spawnCommand starts commands through the process handle here (else node:child_process). */
export function spawnsByHandle(): boolean {
  return processHandle() !== null;
}

/** Starts the command; resolves once it runs (or could not start), as child_process's 'spawn' or 'error'. */
export function spawnCommand(plan: SpawnPlan): Promise<Spawned> {
  const type = processHandle();
  const envPairs = environmentPairs(plan.env);
  if (type === null || envPairs === undefined || hasNul([plan.file, plan.cwd ?? '', ...plan.args])) {
    return spawnByModule(plan);
  }
  const handle = new type.Process();
  let resolveEnd: (end: ChildEnd) => void = () => {};
  const ended = new Promise<ChildEnd>((resolve) => {
    resolveEnd = resolve;
  });
  handle.onexit = (exitCode, signalCode) => {
    handle.close();
    resolveEnd(
      signalCode ? { code: null, signal: signalCode as NodeJS.Signals } : { code: exitCode, signal: null },
    );
  };
  const args = [plan.file, ...plan.args];
  const stdio = plan.stdio.map((fd) => (fd === 'ignore' ? { type: 'ignore' } : { type: 'fd', fd }));
  const status =
    type.detachedFlag === undefined
      ? handle.spawn({
          file: plan.file,
          args,
          cwd: plan.cwd,
          envPairs,
          detached: plan.detached,
          windowsHide: false,
          windowsVerbatimArguments: false,
          stdio,
        })
      : // file, args, cwd, envPairs, stdio, flags, uid, gid: no uid or gid, as child_process leaves them.
        handle.spawn(
          plan.file,
          args,
          plan.cwd,
          envPairs,
          stdio,
          plan.detached ? type.detachedFlag : 0,
          undefined,
          undefined,
        );
  if (status !== 0) {
    handle.close();
    const code = process.getBuiltinModule('node:util').getSystemErrorName(status);
    if (!FAILURES.has(code)) return Promise.reject(spawnError(status, code, 'spawn'));
    const error = spawnError(status, code, `spawn ${plan.file}`);
    return Promise.resolve({
      kind: 'failed',
      error: Object.assign(error, { path: plan.file, spawnargs: [...plan.args] }),
    });
  }
  return Promise.resolve({ kind: 'running', pid: handle.pid, ended });
}

/** `KEY=VALUE` for each variable set, as child_process builds them; undefined when one holds a NUL. */
function environmentPairs(given: NodeJS.ProcessEnv): string[] | undefined {
  // child_process carries the coverage directory into any environment that does not name it.
  const coverage = process.env.NODE_V8_COVERAGE;
  const env =
    coverage && !Object.hasOwn(given, 'NODE_V8_COVERAGE') ? { ...given, NODE_V8_COVERAGE: coverage } : given;
  const pairs: string[] = [];
  // Inherited variables too, as child_process takes them.
  for (const key in env) {
    const value = env[key];
    if (value === undefined) continue;
    if (hasNul([key, value])) return undefined;
    pairs.push(`${key}=${value}`);
  }
  return pairs;
}

function hasNul(texts: readonly string[]): boolean {
  return texts.some((text) => text.includes('\u0000'));
}

/** The error child_process makes of a spawn's status (its ErrnoException): `spawn E2BIG`. */
function spawnError(status: number, code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${syscall} ${code}`), { errno: status, code, syscall });
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
