// Runs a repository's setup or teardown commands (dogsled.toml) in a worktree: each one with
// `sh -c`, in order, stdin closed, in its own process group so a deadline or an abort kills
// everything it started. The first failure stops the rest and becomes a DogsledError that ends with
// the command's last lines of output, stripped of terminal escapes (the output is untrusted).

import { stat } from 'node:fs/promises';
import { expandCommand, type TemplateValues } from '../core/agents/command-template.js';
import { formatAge } from '../core/common/duration.js';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { stripEscapes } from '../core/text/clean.js';
import { type RunResult, runProcess, SpawnError } from '../process/run-process.js';
import { monotonicMs } from '../time/timers.js';

/** Lines of output a failure carries (spec: "its last lines of output"). */
export const FAILURE_OUTPUT_LINES = 20;
/** Output kept per command, from the end: enough for the last lines of any sane output. */
const OUTPUT_TAIL_BYTES = 64 * 1024;

export type RepoCommandKind = 'setup' | 'teardown';

export interface RepoCommandOptions {
  /** The worktree the commands run in. */
  cwd: string;
  values: TemplateValues;
  /** How long, from this call, all the commands together may take (the caller's remaining budget). */
  deadlineMs: number;
  what: RepoCommandKind;
  signal?: AbortSignal;
  /** The commands' environment: the caller's, as a user's own shell would pass it on. */
  env: NodeJS.ProcessEnv;
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
  const deadline = monotonicMs() + options.deadlineMs;
  const where = await stat(options.cwd).catch(() => undefined);
  if (!where?.isDirectory()) {
    throw new DogsledError(`cannot run ${options.what} commands: ${options.cwd} is not a directory`);
  }
  for (const command of expanded) {
    await runOne(command, options, deadline);
  }
}

async function runOne(command: string, options: RepoCommandOptions, deadline: number): Promise<void> {
  const { what, signal } = options;
  if (signal?.aborted) throw new RepoCommandError(`${what} command interrupted`, command, [], signal.reason);
  const remaining = deadline - monotonicMs();
  if (remaining <= 0) {
    throw new RepoCommandError(`${what} command not started: out of time`, command, []);
  }
  const tail = new OutputTail(OUTPUT_TAIL_BYTES);
  let result: RunResult;
  try {
    // Its own process group: the deadline or an abort ends everything the command started.
    result = await runProcess('sh', ['-c', command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      timeoutMs: remaining,
      ...(signal === undefined ? {} : { signal }),
      // Both streams interleaved, as a terminal shows them; only their tail is kept.
      onData: (chunk) => tail.push(chunk),
      keep: 'tail',
      maxOutputBytes: 0,
    });
  } catch (error) {
    if (!(error instanceof SpawnError)) throw error;
    const why = messageOf(error.cause);
    throw new RepoCommandError(`${what} command could not start (${why})`, command, [], error.cause);
  }
  if (result.exitCode === 0 && !result.timedOut && !result.aborted) return;
  const output = tail.lastLines(FAILURE_OUTPUT_LINES);
  throw new RepoCommandError(
    summarize(what, result, options.deadlineMs),
    command,
    output,
    result.aborted ? signal?.reason : undefined,
  );
}

function summarize(what: RepoCommandKind, result: RunResult, budgetMs: number): string {
  if (result.timedOut) return `${what} command timed out (${formatAge(budgetMs)} for all ${what} commands)`;
  if (result.aborted) return `${what} command interrupted`;
  return result.signal
    ? `${what} command failed (signal ${result.signal})`
    : `${what} command failed (exit ${result.exitCode})`;
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
