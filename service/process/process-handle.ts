// The process handle node:child_process is itself built on (the `process_wrap` binding), for the two
// starts that skip the module: the job supervisor's command (jobs/supervisor/exec-spawn.ts) and the
// runner's children whose input is nothing (spawn-by-handle.ts, run-process.ts's). Loading
// node:child_process costs some 10 M instructions of a Node start's 87 M (it pulls node:net, dgram
// and the streams); the handle is a call.
//
// What is passed is what child_process passes for `spawn(file, args, { cwd, env, detached, stdio })`:
// argv with the file first, the environment as KEY=VALUE (NODE_V8_COVERAGE carried over as
// child_process carries it). The handle takes those options in one of two ways, as the release's
// child_process passes them: one object (Node 20, 22, and 24 before nodejs/node#63930), or
// positional arguments with the flags packed in a number whose bits the binding exports as
// `constants` (that change's own marker: later 24.x, and 26). Where the binding is missing, not
// shaped as either, or on a Node major the tests do not cover (node-binding.ts: a wrong call aborts
// the process), or a string holds a NUL (which child_process refuses with its own error), the
// callers use node:child_process itself.

import { nodeBinding } from './node-binding.js';

export interface ProcessHandle {
  spawn(...options: unknown[]): number;
  pid: number;
  onexit: (exitCode: number, signalCode: string) => void;
  kill(signal: number): number;
  close(): void;
}

type ProcessConstructor = new () => ProcessHandle;

/** The binding's Process and how its spawn takes the options. */
interface HandleType {
  Process: ProcessConstructor;
  /** undefined: one options object; else the flag bit for `detached` (positional arguments). */
  detachedFlag: number | undefined;
}

/** One of the child's descriptors as child_process describes it to the handle. */
export type HandleStdio = { type: 'ignore' } | { type: 'fd'; fd: number } | { type: 'pipe'; handle: unknown };

export interface HandleSpawn {
  file: string;
  /** The arguments after the file (argv[1]...). */
  args: readonly string[];
  cwd: string | undefined;
  envPairs: string[];
  detached: boolean;
  stdio: HandleStdio[];
}

/** The refusals child_process emits as 'error' rather than throws (internal/child_process.js). */
export const SPAWN_FAILURES: ReadonlySet<string> = new Set([
  'EACCES',
  'EAGAIN',
  'EMFILE',
  'ENFILE',
  'ENOENT',
]);

let handleType: HandleType | null | undefined;

/** The binding's Process, or null where it is missing or not shaped as child_process uses it. */
function processHandle(): HandleType | null {
  if (handleType !== undefined) return handleType;
  handleType = null;
  const binding = nodeBinding('process_wrap');
  const Process = binding?.Process as ProcessConstructor | undefined;
  const proto = typeof Process === 'function' ? (Process.prototype as Partial<ProcessHandle>) : undefined;
  if (
    Process === undefined ||
    typeof proto?.spawn !== 'function' ||
    typeof proto.close !== 'function' ||
    typeof proto.kill !== 'function'
  ) {
    return handleType;
  }
  const constants = binding?.constants as { kProcessFlagDetached?: unknown } | undefined;
  if (constants === undefined) handleType = { Process, detachedFlag: undefined };
  else if (typeof constants.kProcessFlagDetached === 'number') {
    handleType = { Process, detachedFlag: constants.kProcessFlagDetached };
  }
  return handleType;
}

/** Whether processes start through the handle here (else node:child_process). */
export function spawnsByHandle(): boolean {
  return processHandle() !== null;
}

/**
 * A new process handle with `plan` spawned through it: the handle and the spawn's status (0, or a
 * negative errno; the handle is closed then), or undefined where the handle is not there as
 * expected (nothing started).
 */
export function spawnHandle(plan: HandleSpawn): { handle: ProcessHandle; status: number } | undefined {
  const type = processHandle();
  if (type === null) return undefined;
  const handle = new type.Process();
  const args = [plan.file, ...plan.args];
  const status =
    type.detachedFlag === undefined
      ? handle.spawn({
          file: plan.file,
          args,
          cwd: plan.cwd,
          envPairs: plan.envPairs,
          detached: plan.detached,
          windowsHide: false,
          windowsVerbatimArguments: false,
          stdio: plan.stdio,
        })
      : // file, args, cwd, envPairs, stdio, flags, uid, gid: no uid or gid, as child_process leaves them.
        handle.spawn(
          plan.file,
          args,
          plan.cwd,
          plan.envPairs,
          plan.stdio,
          plan.detached ? type.detachedFlag : 0,
          undefined,
          undefined,
        );
  if (status !== 0) handle.close();
  return { handle, status };
}

/** `KEY=VALUE` for each variable set, as child_process builds them; undefined when one holds a NUL. */
export function environmentPairs(given: NodeJS.ProcessEnv): string[] | undefined {
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

export function hasNul(texts: readonly string[]): boolean {
  return texts.some((text) => text.includes('\u0000'));
}

/** The error child_process makes of a spawn's status (its ErrnoException): `spawn E2BIG`. */
export function spawnError(status: number, syscall: string): NodeJS.ErrnoException {
  const code = process.getBuiltinModule('node:util').getSystemErrorName(status);
  return Object.assign(new Error(`${syscall} ${code}`), { errno: status, code, syscall });
}
