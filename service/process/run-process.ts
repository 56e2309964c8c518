// The one runner for every short-lived child (git, herdr, ssh, ps, setup commands): argv only (never
// a shell), the environment the caller gives (never process.env implicitly), stdin bytes or nothing,
// a deadline and an AbortSignal that escalate SIGTERM to SIGKILL, and capped output. A child killed
// by a signal, the deadline or the cap is never a success. The job supervisor stays separate.

import { DogsledError } from '../core/common/errors.js';
import { type LongTimer, longTimeout, monotonicMs } from '../time/timers.js';
import { type ChildHooks, type RunningChild, startByHandle } from './spawn-by-handle.js';

/** node:child_process is loaded on the first spawn: most commands start no child. */
const childProcess = () => process.getBuiltinModule('node:child_process');

/** A child that ignores SIGTERM this long after its deadline or abort is killed. */
export const KILL_GRACE_MS = 2_000;
/** Output kept per stream by default: far above any answer we parse, small enough to never hurt. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/**
 * How long a child's pipes may stay open after it exited (a background grandchild holding them, such
 * as an ssh ControlMaster) before the runner stops reading and answers.
 */
const DRAIN_MS = 200;
/**
 * Turns of the event loop the answer waits, past the drain's delay, while each still brings output
 * (a grandchild that keeps writing): far more than the child's own output, already in the pipes,
 * needs (one turn reads megabytes), and a bound on one that never stops.
 */
const DRAIN_TURNS = 64;

export type OutputStream = 'stdout' | 'stderr';

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to stdin, which is then closed; absent means stdin is /dev/null. */
  input?: string | Uint8Array;
  /** Deadline from the start; any length (held exactly past Node's 24.8-day timer limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** SIGTERM to SIGKILL when the child is stopped; 0 sends SIGKILL at once (no state worth saving). */
  killGraceMs?: number;
  /** New session and process group: a stop signals the whole group, and what outlives it is killed. */
  detached?: boolean;
  /** Bytes kept per stream (default 64 MiB). */
  maxOutputBytes?: number;
  /**
   * 'head' (default): the answer is the output's beginning; past the cap the child is stopped and the
   * result is `truncated` (never a success). 'tail': the last bytes are kept and the child runs on.
   */
  keep?: 'head' | 'tail';
  /** Every chunk as it arrives, in arrival order across both streams (not limited by the cap). */
  onData?: (chunk: Buffer, stream: OutputStream) => void;
}

export interface RunResult {
  argv: string[];
  /** Exit status, or null when a signal ended the child (or it never started: aborted before). */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  durationMs: number;
  timedOut: boolean;
  aborted: boolean;
  /** Output passed the cap: in 'head' mode the child was stopped, in 'tail' mode its start dropped. */
  truncated: boolean;
}

/** The program could not be started at all (missing, not executable, no such directory). */
export class SpawnError extends DogsledError {
  constructor(
    readonly file: string,
    readonly code: string | undefined,
    cause: unknown,
  ) {
    super(`cannot run ${file}: ${code ?? (cause instanceof Error ? cause.message : String(cause))}`, {
      cause,
    });
  }
}

/** Runs `file args…`; resolves with the result whatever the exit, rejects only with SpawnError. */
export function runProcess(file: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  const started = monotonicMs();
  const argv = [file, ...args];
  const cap = options.maxOutputBytes ?? MAX_OUTPUT_BYTES;
  const keep = options.keep ?? 'head';
  const graceMs = options.killGraceMs ?? KILL_GRACE_MS;
  if (options.signal?.aborted) {
    return Promise.resolve({
      argv,
      exitCode: null,
      signal: null,
      stdout: Buffer.alloc(0),
      stderr: Buffer.alloc(0),
      durationMs: 0,
      timedOut: false,
      aborted: true,
      truncated: false,
    });
  }
  return new Promise((resolve, reject) => {
    const kept = { stdout: new Kept(cap, keep), stderr: new Kept(cap, keep) };
    let stopped = false;
    let timedOut = false;
    let aborted = false;
    let grace: NodeJS.Timeout | undefined;
    let drain: NodeJS.Timeout | undefined;
    /** Bytes read from both pipes so far, kept or not: whether a turn of the loop brought any. */
    let arrived = 0;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let done = false;
    let deadline: LongTimer | undefined;
    let child: RunningChild | undefined;

    const kill = (signal: NodeJS.Signals): void => {
      try {
        if (options.detached && child?.pid !== undefined) process.kill(-child.pid, signal);
        else child?.kill(signal);
      } catch {
        // Already gone.
      }
    };
    const stop = (): void => {
      if (stopped || exit !== undefined) return;
      stopped = true;
      if (graceMs <= 0) {
        kill('SIGKILL');
        return;
      }
      kill('SIGTERM');
      grace ??= setTimeout(() => kill('SIGKILL'), graceMs);
    };
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    const settle = (): void => {
      deadline?.clear();
      if (grace) clearTimeout(grace);
      if (drain) clearTimeout(drain);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const finish = (): void => {
      if (done || exit === undefined) return;
      done = true;
      settle();
      child?.closeOutput();
      resolve({
        argv,
        exitCode: exit.code,
        signal: exit.signal,
        stdout: kept.stdout.bytes(),
        stderr: kept.stderr.bytes(),
        durationMs: monotonicMs() - started,
        timedOut,
        aborted,
        truncated: kept.stdout.dropped || kept.stderr.dropped,
      });
    };
    // The delay bounds a grandchild that holds the pipes, never the child's own output: that is in
    // the pipes once it has exited, but a timer can fire before the loop reads them again (the exit
    // was heard in a busy turn, or the turn was late: the delay runs from the loop's cached clock,
    // and timers run before the poll). An answer taken then is whatever was read, empty perhaps,
    // with status 0. So the answer waits for a poll after the delay (an immediate runs after one),
    // and for more while a poll still brings output.
    const drained = (turns: number): void => {
      if (done) return;
      const before = arrived;
      setImmediate(() => {
        if (arrived !== before && turns < DRAIN_TURNS) drained(turns + 1);
        else finish();
      });
    };
    const hooks: ChildHooks = {
      data: (chunk, stream) => {
        arrived += chunk.length;
        options.onData?.(chunk, stream);
        if (!kept[stream].push(chunk) && keep === 'head') stop();
      },
      exit: (code, signal) => {
        exit = { code, signal };
        // The leader is gone after a stop: whatever it left running in its group goes too.
        if (stopped && options.detached) kill('SIGKILL');
        drain = setTimeout(() => drained(0), DRAIN_MS);
      },
      close: finish,
    };
    const failed = (error: NodeJS.ErrnoException): void => {
      if (done) return;
      done = true;
      settle();
      reject(new SpawnError(file, error.code, error));
    };
    child = start(file, args, options, hooks, failed);
    if (child === undefined) return;
    deadline =
      options.timeoutMs === undefined
        ? undefined
        : longTimeout(options.timeoutMs, () => {
            timedOut = true;
            stop();
          });
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The child started, its output and ends given to `hooks`; undefined when it could not start
 * (`failed` has been told). A child whose input is nothing starts through the handles
 * (spawn-by-handle.ts) where they are there as expected, any other through node:child_process.
 */
function start(
  file: string,
  args: readonly string[],
  options: RunOptions,
  hooks: ChildHooks,
  failed: (error: NodeJS.ErrnoException) => void,
): RunningChild | undefined {
  const run = { env: options.env, cwd: options.cwd, detached: options.detached ?? false };
  const byHandle = options.input === undefined ? startByHandle(file, args, run, hooks) : undefined;
  if (byHandle?.kind === 'failed') {
    failed(byHandle.error);
    return undefined;
  }
  if (byHandle !== undefined) return byHandle.child;
  return startByModule(file, args, options, hooks, failed);
}

/** The same start through node:child_process, with stdin a pipe when there is input. */
function startByModule(
  file: string,
  args: readonly string[],
  options: RunOptions,
  hooks: ChildHooks,
  failed: (error: NodeJS.ErrnoException) => void,
): RunningChild {
  const child = childProcess().spawn(file, args, {
    env: options.env,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached: options.detached ?? false,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  // Both output streams are pipes (stdio above), never null.
  const stdout = child.stdout as NodeJS.ReadableStream & { destroy(): void };
  const stderr = child.stderr as NodeJS.ReadableStream & { destroy(): void };
  let spawned = false;
  stdout.on('data', (chunk: Buffer) => hooks.data(chunk, 'stdout'));
  stderr.on('data', (chunk: Buffer) => hooks.data(chunk, 'stderr'));
  child.once('spawn', () => {
    spawned = true;
  });
  child.on('error', (error: NodeJS.ErrnoException) => {
    // After the spawn, an error is a failed kill of a child that is already gone: nothing to do.
    if (!spawned) failed(error);
  });
  child.once('exit', (code, signal) => hooks.exit(code, signal));
  child.once('close', () => hooks.close());
  if (child.stdin) {
    // A child that exits before reading its input closes the pipe; that is its answer, not ours.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input);
  }
  return {
    pid: child.pid,
    kill: (signal) => {
      child.kill(signal);
    },
    closeOutput: () => {
      stdout.destroy();
      stderr.destroy();
    },
  };
}

/** How a run ended: enough to tell success, shared by results built on the runner's (git's). */
export type RunEnding = Pick<RunResult, 'exitCode' | 'signal' | 'timedOut' | 'aborted' | 'truncated'>;

/** True when the child ran to completion with status 0 and its whole output was kept. */
export function succeeded(result: RunEnding): boolean {
  return (
    result.exitCode === 0 &&
    result.signal === null &&
    !result.timedOut &&
    !result.aborted &&
    !result.truncated
  );
}

/** How a run that did not succeed ended, in a few words: `timed out after 5s`, `exited with code 3`. */
export function endingOf(result: RunResult, timeoutMs?: number): string {
  if (result.timedOut) return timeoutMs === undefined ? 'timed out' : `timed out after ${timeoutMs} ms`;
  if (result.aborted) return 'interrupted';
  if (result.truncated) return 'output too large';
  if (result.signal !== null) return `killed by ${result.signal}`;
  return `exited with code ${result.exitCode}`;
}

/** One stream's output, its beginning or its end up to the cap. */
class Kept {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = false;

  constructor(
    private readonly cap: number,
    private readonly keep: 'head' | 'tail',
  ) {}

  /** false once something had to be dropped. */
  push(chunk: Buffer): boolean {
    if (this.keep === 'tail') return this.pushTail(chunk);
    const room = this.cap - this.size;
    const taken = chunk.length > room ? chunk.subarray(0, Math.max(0, room)) : chunk;
    if (taken.length > 0) {
      this.chunks.push(taken);
      this.size += taken.length;
    }
    if (taken !== chunk) this.dropped = true;
    return !this.dropped;
  }

  private pushTail(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.cap && this.chunks.length > 0) {
      const first = this.chunks[0] as Buffer;
      const excess = this.size - this.cap;
      this.dropped = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
    return !this.dropped;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}

/**
 * Runs `file args…` on this process's own terminal (stdin, stdout and stderr inherited) so the user
 * can answer its prompts (an SSH password, a host key); resolves with its exit status. No deadline:
 * the user is there.
 */
export function runInteractive(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = childProcess().spawn(file, args, { env, stdio: 'inherit' });
    child.on('error', (error) => reject(new SpawnError(file, (error as NodeJS.ErrnoException).code, error)));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}
