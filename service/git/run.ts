// Every git process dogsled starts goes through runGit: argv only (never a shell), a bounded
// deadline that escalates SIGTERM to SIGKILL, an optional AbortSignal, and a typed result. The
// environment is the caller's (GitIO: this process's own is never read here), cleared of what would
// redirect git and pinned where parsers rely on it (C locale, no optional locks that would touch the
// index, no prompts); per-call `-c` settings keep a user's config from changing the output format.

import { spawn } from 'node:child_process';
import { formatAge } from '../core/duration.js';
import { DogsledError } from '../errors.js';

/** A routine git read; a repository this slow is reported, not waited on for ever. */
export const GIT_TIMEOUT_MS = 30_000;
/** `git fetch --all --prune` reaches the network: a dead remote must not stall a cleanup pass. */
export const FETCH_TIMEOUT_MS = 60_000;
const KILL_GRACE_MS = 2_000;

/** Settings that keep a user's git config from changing what dogsled parses. */
const PINNED_CONFIG = [
  '-c',
  'core.quotepath=false',
  '-c',
  'color.ui=false',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'diff.renames=false',
  '-c',
  'status.renames=false',
  '-c',
  'merge.renames=false',
];

/** What every git call takes from its caller: the environment git starts from, and its deadline. */
export interface GitIO {
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
}

/** Just the GitIO of a larger IO object, so nothing else of it reaches a git call's options. */
export function gitIO(io: GitIO): GitIO {
  return { env: io.env, signal: io.signal };
}

export interface GitOptions extends GitIO {
  cwd: string;
  /** Written to the child's stdin, which is closed afterwards (closed at once when absent). */
  input?: string | Buffer;
  timeoutMs?: number;
  /** Added to the environment (temporary object directories, literal pathspecs). */
  extraEnv?: NodeJS.ProcessEnv;
  /** Start in a new session, without a controlling terminal (nothing can prompt the user). */
  detached?: boolean;
}

export interface GitResult {
  args: string[];
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
}

/** The environment every git child gets: the caller's, minus what would redirect or localise git. */
export function gitEnv(caller: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(caller)) {
    // A GIT_DIR or GIT_WORK_TREE inherited from a hook would point every command at one repository.
    if (
      /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR|PREFIX|NAMESPACE)$/.test(
        key,
      )
    ) {
      continue;
    }
    env[key] = value;
  }
  return {
    ...env,
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    LANGUAGE: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    ...extra,
  };
}

/** Runs `git <args>` and resolves with its result whatever the exit status; rejects only on spawn failure. */
export function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  const argv = [...PINNED_CONFIG, ...args];
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const child = spawn('git', argv, {
      cwd: options.cwd,
      env: gitEnv(options.env, options.extraEnv),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: options.detached ?? false,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    let grace: NodeJS.Timeout | undefined;
    // A detached child leads its own process group: signal the group, so ssh dies with git.
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
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = (): void => stop();
    if (options.signal?.aborted) stop();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
      reject(new DogsledError(`cannot run git: ${error.message}`, { cause: error }));
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        args: [...args],
        exitCode,
        signal,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString('utf8'),
        durationMs: performance.now() - started,
        timedOut,
      });
    });
    // A child that exits before reading its input closes the pipe; that is its answer, not ours.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** True when git ran to completion with status 0. A signal or a timeout is never success. */
export function succeeded(result: GitResult): boolean {
  return result.exitCode === 0 && result.signal === null && !result.timedOut;
}

/** Why a git call failed, in one line: its last stderr line, the signal or the deadline. */
export function failureOf(result: GitResult, timeoutMs = GIT_TIMEOUT_MS): string {
  if (result.timedOut) return `git ${result.args[0]} timed out after ${formatAge(timeoutMs)}`;
  if (result.signal) return `git ${result.args[0]} was killed by ${result.signal}`;
  const lines = result.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const last = lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[lines.length - 1];
  return `git ${result.args[0]} exited ${result.exitCode}${last ? `: ${last.replace(/^(fatal|error): /, '')}` : ''}`;
}

/** Runs git and returns stdout as text; any failure becomes a DogsledError naming the directory. */
export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  const result = await runGit(args, options);
  if (!succeeded(result)) {
    throw new DogsledError(`${options.cwd}: ${failureOf(result, options.timeoutMs)}`);
  }
  return result.stdout.toString('utf8');
}

/** Splits NUL-separated output, dropping the empty field after the final NUL. */
export function splitNul(text: string): string[] {
  const fields = text.split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  return fields;
}
