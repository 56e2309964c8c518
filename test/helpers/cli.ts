// Runs the built CLI as a real process in a private sandbox: its own HOME, state dir and config
// path, with the caller's DOGSLED_* and Herdr variables cleared so a developer's setup never
// leaks into a test.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempDir } from './tree.js';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'dogsled.cjs');

export interface Sandbox {
  root: string;
  home: string;
  state: string;
  configPath: string;
  env: NodeJS.ProcessEnv;
  cleanup: () => Promise<void>;
}

export async function sandbox(extraEnv: NodeJS.ProcessEnv = {}): Promise<Sandbox> {
  const root = await tempDir('dogsled-cli-');
  const home = join(root, 'home');
  const state = join(root, 'state');
  await mkdir(join(home, '.config', 'dogsled'), { recursive: true });
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // TMUX too: a suite started inside tmux must not make every command pick the tmux backend.
    if (/^(DOGSLED_|HERDR_|XDG_|TMUX)/.test(key) || key === 'CI' || key === 'NO_COLOR') continue;
    env[key] = value;
  }
  Object.assign(env, { HOME: home, DOGSLED_STATE: state, TMPDIR: root }, extraEnv);
  return {
    root,
    home,
    state,
    configPath: join(home, '.config', 'dogsled', 'config.toml'),
    env,
    // Retries: a job's supervisor outlives its pane and may still write its final record and log.
    cleanup: () => rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }),
  };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  input?: string;
  /** The command is killed (SIGKILL) after this long; default 15 s. */
  timeoutMs?: number;
  cwd?: string;
  /**
   * Run as another user (tests that need a caller who may not read a file; needs root), with `cli`
   * set to a copy that user can read (`readableCli`): the checkout may be closed to other users.
   */
  uid?: number;
  gid?: number;
  /** The CLI entry to run instead of this checkout's dist/dogsled.cjs. */
  cli?: string;
}

export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: SpawnOptions = {},
): Promise<CliResult> {
  return spawnCli(args, env, options).done;
}

/**
 * Where the CLI runs when a test names no directory: the sandbox's home, never the repository the
 * tests run from (a `--branch` or a cleanup pass there would act on the developer's own branches).
 */
function cwdFor(env: NodeJS.ProcessEnv, cwd: string | undefined): string {
  if (cwd) return cwd;
  return env.HOME && existsSync(env.HOME) ? env.HOME : tmpdir();
}

/** Starts the CLI with its own stdout and stderr; `done` settles once it has exited. */
export function spawnCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: SpawnOptions = {},
): { child: ChildProcess; done: Promise<CliResult> } {
  return spawnNode([options.cli ?? CLI, ...args], env, options);
}

/** Node with `argv` (a script and its arguments, or `-e` and code), as spawnCli runs the CLI. */
export function runNode(
  argv: string[],
  env: NodeJS.ProcessEnv,
  options: SpawnOptions = {},
): Promise<CliResult> {
  return spawnNode(argv, env, options).done;
}

/**
 * A run's stderr without DOGSLED_TIMING's lines, and the hot bundles it compiled, in order
 * (`['hook-lean']` when the lean bundle answered), but the dispatcher every command starts from.
 */
export function timingSplit(stderr: string): { stderr: string; bundles: string[] } {
  const bundles = [...stderr.matchAll(/^timing .* compiled \(code cache: [^)]*\) (\S+)$/gm)]
    .map((m) => m[1] as string)
    .filter((name) => name !== 'dispatch');
  const rest = stderr
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('timing '))
    .join('\n');
  return { stderr: rest, bundles };
}

/** Node with `argv`, as spawnCli starts the CLI; `done` settles once it has exited. */
export function spawnNode(
  argv: string[],
  env: NodeJS.ProcessEnv,
  options: SpawnOptions,
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, argv, {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd: cwdFor(env, options.cwd),
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {}),
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  child.stdin?.end(options.input ?? '');
  return { child, done };
}

/**
 * Starts a long-running command (serve, status --watch); the caller stops it. `as`: another user
 * (root's tests of unreadable files), with a copy of the CLI that user can read (readableCli).
 */
export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
  as?: { uid: number; gid: number; cli: string },
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [as?.cli ?? CLI, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: cwdFor(env, cwd),
    ...(as ? { uid: as.uid, gid: as.gid } : {}),
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  return Object.assign(child, { output: () => output });
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}
