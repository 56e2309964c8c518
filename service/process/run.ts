// One child process, start to finish: argv only (never a shell), the environment the caller gives
// (never process.env implicitly), stdin bytes or nothing, a deadline that escalates SIGTERM to
// SIGKILL, an AbortSignal, and capped output. A child killed by a signal or the deadline is never a
// success. Meant as the one runner for every short-lived child (the job supervisor stays separate).

import { spawn } from 'node:child_process';
import { DogsledError } from '../errors.js';

/** A child that ignores SIGTERM this long after its deadline or abort is killed. */
const KILL_GRACE_MS = 2_000;
/** Node's timers fire at once past this; a longer deadline is held at it (about 24 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Output kept per stream by default: far above any verb's answer, small enough to never hurt. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to stdin, which is then closed; absent means stdin is closed at once. */
  input?: string | Uint8Array;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** New session and process group: deadline and abort signal the whole group. */
  detached?: boolean;
  /** Bytes kept per stream; the rest is dropped and `truncated` set. */
  maxOutputBytes?: number;
}

export interface RunResult {
  argv: string[];
  /** Exit status, or null when a signal ended the child. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  durationMs: number;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
}

/** The program could not be started at all (missing, not executable). */
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
  const started = performance.now();
  const cap = options.maxOutputBytes ?? MAX_OUTPUT_BYTES;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: options.detached ?? false,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    const streams = { stdout: new Capped(cap), stderr: new Capped(cap) };
    let timedOut = false;
    let aborted = false;
    let grace: NodeJS.Timeout | undefined;
    const kill = (signal: NodeJS.Signals): void => {
      try {
        if (options.detached && child.pid !== undefined) process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // Already gone.
      }
    };
    const stop = (): void => {
      kill('SIGTERM');
      grace ??= setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
    };
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => {
              timedOut = true;
              stop();
            },
            Math.min(options.timeoutMs, MAX_TIMER_MS),
          );
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (): void => {
      if (timer) clearTimeout(timer);
      if (grace) clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.stdout.on('data', (chunk: Buffer) => streams.stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => streams.stderr.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      settle();
      reject(new SpawnError(file, error.code, error));
    });
    child.on('close', (exitCode, signal) => {
      settle();
      resolve({
        argv: [file, ...args],
        exitCode,
        signal,
        stdout: streams.stdout.bytes(),
        stderr: streams.stderr.bytes(),
        durationMs: performance.now() - started,
        timedOut,
        aborted,
        truncated: streams.stdout.dropped || streams.stderr.dropped,
      });
    });
    // A child that exits before reading its input closes the pipe; that is its answer, not ours.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** True when the child ran to completion with status 0. */
export function succeeded(result: RunResult): boolean {
  return result.exitCode === 0 && result.signal === null && !result.timedOut && !result.aborted;
}

class Capped {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  dropped = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (room <= 0) {
      this.dropped = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.dropped = true;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}
