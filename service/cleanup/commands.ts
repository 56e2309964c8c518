// Runs a repository's setup or teardown commands (dogsled.toml) in a worktree: each one with
// `sh -c`, in order, stdin closed, in its own process group so a deadline or an abort kills
// everything it started. The first failure stops the rest and becomes a DogsledError that ends with
// the command's last lines of output, stripped of terminal escapes (the output is untrusted).

import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { expandCommand, type TemplateValues } from '../core/command-template.js';
import { formatAge } from '../core/duration.js';
import { stripEscapes } from '../core/strip-escapes.js';
import { DogsledError } from '../errors.js';

/** Lines of output a failure carries (spec: "its last lines of output"). */
export const FAILURE_OUTPUT_LINES = 20;
/** Output kept per command, from the end: enough for the last lines of any sane output. */
const OUTPUT_TAIL_BYTES = 64 * 1024;
/** A command that ignores SIGTERM this long after its deadline is killed. */
const KILL_GRACE_MS = 2_000;
/** How long a finished shell's pipes may stay open (a background child holding them) before we stop reading. */
const DRAIN_MS = 200;

export type RepoCommandKind = 'setup' | 'teardown';

export interface RepoCommandOptions {
  /** The worktree the commands run in. */
  cwd: string;
  values: TemplateValues;
  /** How long, from this call, all the commands together may take (the caller's remaining budget). */
  deadlineMs: number;
  what: RepoCommandKind;
  signal?: AbortSignal;
}

/** A failed, timed-out or interrupted command, with its output tail for reports that want it apart. */
export class RepoCommandError extends DogsledError {
  /** The command as expanded (what sh ran). */
  readonly command: string;
  /** Last lines of the command's output (stdout and stderr interleaved), escapes stripped. */
  readonly output: string[];

  constructor(summary: string, command: string, output: string[], cause?: unknown) {
    const tail = output.length > 0 ? `\n${output.map((line) => `  ${line}`).join('\n')}` : '';
    super(`${summary}: ${command}${tail}`, cause === undefined ? {} : { cause });
    this.command = command;
    this.output = output;
  }
}

/**
 * Runs `commands` one after another in `options.cwd`. Resolves when all exit 0; otherwise throws
 * a RepoCommandError (`teardown command failed (exit 3): <command>` and the output's last lines)
 * and runs none of the rest. A bad placeholder throws before anything runs.
 */
export async function runRepoCommands(
  commands: readonly string[],
  options: RepoCommandOptions,
): Promise<void> {
  if (commands.length === 0) return;
  const expanded = commands.map((template) => {
    const result = expandCommand(template, options.values);
    if (!result.ok) throw new DogsledError(`${options.what}: ${result.error}`);
    return result.command;
  });
  const deadline = performance.now() + options.deadlineMs;
  const where = await stat(options.cwd).catch(() => undefined);
  if (!where?.isDirectory()) {
    throw new DogsledError(`cannot run ${options.what} commands: ${options.cwd} is not a directory`);
  }
  for (const command of expanded) {
    await runOne(command, options, deadline);
  }
}

type Ending =
  | { kind: 'exit'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'deadline' }
  | { kind: 'aborted' }
  | { kind: 'spawn-error'; error: Error };

async function runOne(command: string, options: RepoCommandOptions, deadline: number): Promise<void> {
  const { what, signal } = options;
  if (signal?.aborted) throw new RepoCommandError(`${what} command interrupted`, command, [], signal.reason);
  const remaining = deadline - performance.now();
  if (remaining <= 0) {
    throw new RepoCommandError(`${what} command not started: out of time`, command, []);
  }
  const tail = new OutputTail(OUTPUT_TAIL_BYTES);
  const child = spawn('sh', ['-c', command], {
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.on('data', (chunk: Buffer) => tail.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => tail.push(chunk));

  const killGroup = (sig: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  let graceTimer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    killGroup('SIGTERM');
    graceTimer ??= setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
  };

  let ending: Ending | undefined;
  const exited = new Promise<Ending>((resolve) => {
    child.once('error', (error) => resolve({ kind: 'spawn-error', error }));
    child.once('exit', (code, sig) => resolve({ kind: 'exit', code, signal: sig }));
  });
  const deadlineTimer = setTimeout(() => {
    ending ??= { kind: 'deadline' };
    stop();
  }, remaining);
  const onAbort = (): void => {
    ending ??= { kind: 'aborted' };
    stop();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let exit: Ending;
  try {
    exit = await exited;
    clearTimeout(deadlineTimer);
    signal?.removeEventListener('abort', onAbort);
    await drain(child.stdout, child.stderr);
  } finally {
    clearTimeout(deadlineTimer);
    signal?.removeEventListener('abort', onAbort);
    if (ending !== undefined) {
      // The shell is gone; anything it left running in its group goes too.
      if (graceTimer) clearTimeout(graceTimer);
      killGroup('SIGKILL');
    }
    child.stdout.destroy();
    child.stderr.destroy();
  }

  const output = tail.lastLines(FAILURE_OUTPUT_LINES);
  const final = ending ?? exit;
  if (final.kind === 'exit' && final.code === 0) return;
  throw new RepoCommandError(
    summarize(what, final, options.deadlineMs),
    command,
    output,
    causeOf(final, signal),
  );
}

function summarize(what: RepoCommandKind, ending: Ending, budgetMs: number): string {
  switch (ending.kind) {
    case 'exit':
      return ending.signal
        ? `${what} command failed (signal ${ending.signal})`
        : `${what} command failed (exit ${ending.code})`;
    case 'deadline':
      return `${what} command timed out (${formatAge(budgetMs)} for all ${what} commands)`;
    case 'aborted':
      return `${what} command interrupted`;
    case 'spawn-error':
      return `${what} command could not start (${ending.error.message})`;
  }
}

function causeOf(ending: Ending, signal: AbortSignal | undefined): unknown {
  if (ending.kind === 'spawn-error') return ending.error;
  if (ending.kind === 'aborted') return signal?.reason;
  return undefined;
}

/** Waits briefly for both pipes to close; a background child may hold them open for ever. */
async function drain(...streams: NodeJS.ReadableStream[]): Promise<void> {
  const closed = streams.map(
    (stream) =>
      new Promise<void>((resolve) => {
        if ((stream as { closed?: boolean }).closed) resolve();
        else stream.once('close', () => resolve());
      }),
  );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, DRAIN_MS);
  });
  await Promise.race([Promise.all(closed), late]);
  clearTimeout(timer);
}

/** The last `limit` bytes of a stream of chunks. */
class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit && this.chunks.length > 1) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }

  /** The last non-empty lines as a terminal would show them: a `\r` rewrites its line. */
  lastLines(count: number): string[] {
    let buffer = Buffer.concat(this.chunks);
    if (buffer.length > this.limit) buffer = buffer.subarray(buffer.length - this.limit);
    const lines = buffer
      .toString('utf8')
      .split('\n')
      .map((line) => stripEscapes(line.replace(/\r+$/, '').split('\r').pop() ?? '').trimEnd())
      .filter((line) => line.trim() !== '');
    // The first line may be cut mid-way by the byte bound; it is still the best we have.
    return lines.slice(-count);
  }
}
