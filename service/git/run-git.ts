// Every git process dogsled starts goes through runGit, on the one runner (service/process/run-process.ts):
// argv only (never a shell), a bounded deadline that escalates SIGTERM to SIGKILL, an optional
// AbortSignal, capped output and a typed result. The environment is the caller's (GitIO: this
// process's own is never read here), cleared of what would redirect git and pinned where parsers
// rely on it (C locale, no optional locks that would touch the index, no prompts); per-call `-c`
// settings keep a user's config from changing the output format.

import { formatAge } from '../core/common/duration.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { succeeded as ranToCompletion, runProcess, SpawnError } from '../process/run-process.js';

/** A routine git read; a repository this slow is reported, not waited on for ever. */
export const GIT_TIMEOUT_MS = 30_000;
/** `git fetch --all --prune` reaches the network: a dead remote must not stall a cleanup pass. */
export const FETCH_TIMEOUT_MS = 60_000;
/**
 * Output kept per stream. Far above anything dogsled parses (the largest is a listing of a huge
 * repository); a git past it is stopped and its output is never taken as complete.
 */
const GIT_MAX_OUTPUT_BYTES = 1024 * 1024 * 1024;

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
  /** The caller's AbortSignal stopped it (or it was aborted before git started). */
  aborted: boolean;
  /** Output passed GIT_MAX_OUTPUT_BYTES: git was stopped and what it printed is incomplete. */
  truncated: boolean;
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
export async function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  try {
    const result = await runProcess('git', [...PINNED_CONFIG, ...args], {
      cwd: options.cwd,
      env: gitEnv(options.env, options.extraEnv),
      timeoutMs: options.timeoutMs ?? GIT_TIMEOUT_MS,
      maxOutputBytes: GIT_MAX_OUTPUT_BYTES,
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      // A detached git leads its own process group: a stop signals the group, so ssh dies with git.
      ...(options.detached === undefined ? {} : { detached: options.detached }),
    });
    return {
      args: [...args],
      exitCode: result.exitCode,
      signal: result.signal,
      stdout: result.stdout,
      stderr: result.stderr.toString('utf8'),
      durationMs: result.durationMs,
      timedOut: result.timedOut,
      aborted: result.aborted,
      truncated: result.truncated,
    };
  } catch (error) {
    if (!(error instanceof SpawnError)) throw error;
    throw new DogsledError(`cannot run git: ${messageOf(error.cause)}`, { cause: error.cause });
  }
}

/** True when git ran to completion with status 0. A signal, a timeout or a cut output is never success. */
export function succeeded(result: GitResult): boolean {
  return ranToCompletion(result);
}

/** Why a git call failed, in one line: its last stderr line, the signal or the deadline. */
export function failureOf(result: GitResult, timeoutMs = GIT_TIMEOUT_MS): string {
  if (result.timedOut) return `git ${result.args[0]} timed out after ${formatAge(timeoutMs)}`;
  if (result.aborted) return `git ${result.args[0]} was interrupted`;
  if (result.truncated) return `git ${result.args[0]} printed more than ${GIT_MAX_OUTPUT_BYTES >> 20} MiB`;
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
