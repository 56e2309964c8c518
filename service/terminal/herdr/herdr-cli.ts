// The herdr CLI as a transport: `herdr [--machine ID] <command…>` on the one runner (never a shell).
// Exit 0 prints the envelope on stdout (or raw text, or nothing); exit 1 prints Herdr's error
// envelope on stderr; exit 2 is a usage error in plain text. Used when no socket is usable, and for
// everything forwarded to a saved machine, which has no socket method.

import { type RunResult, runProcess, SpawnError } from '../../process/run-process.js';
import { TerminalError } from '../terminal-errors.js';
import { errorOf, type Reply, replyOf } from './envelope.js';
import { type CallOptions, deadlineOf, ROUTINE_TIMEOUT_MS, type Transport } from './herdr-channel.js';
import { type CliCommand, cliCommand } from './herdr-cli-commands.js';

export interface CliRun {
  /** Exit status, or null when a signal ended the process. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The output passed the cap and herdr was stopped: what it printed is incomplete. */
  truncated: boolean;
}

export interface CliRunOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** Output kept per stream: far above any reply; a herdr printing more is stopped. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Runs the binary; rejects only when it cannot be started (`unreachable`) or the signal aborted. */
export async function runHerdr(bin: string, args: string[], options: CliRunOptions): Promise<CliRun> {
  let result: RunResult;
  try {
    result = await runProcess(bin, args, {
      env: options.env,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      // The CLI holds no state worth a graceful exit; a wait it runs is cancelled by the close.
      killGraceMs: 0,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (!(error instanceof SpawnError)) throw error;
    throw new TerminalError('unreachable', `herdr binary ${bin} cannot be run (${error.code ?? 'error'})`, {
      cause: error,
    });
  }
  if (result.aborted) throw options.signal?.reason ?? new DOMException('aborted', 'AbortError');
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    stdout: result.stdout.toString('utf8'),
    stderr: result.stderr.toString('utf8'),
    timedOut: result.timedOut,
    truncated: result.truncated,
  };
}

function firstLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .find((line) => line.trim() !== '') ?? ''
  );
}

/** Herdr's error envelope on stderr (exit 1); other lines, such as warnings, may surround it. */
function stderrError(stderr: string, method: string): TerminalError | undefined {
  for (const line of stderr.trim().split('\n').reverse()) {
    try {
      const value = JSON.parse(line) as { error?: unknown };
      if (value && typeof value === 'object' && value.error !== undefined)
        return errorOf(value.error, method);
    } catch {}
  }
  return undefined;
}

/** Turns a finished CLI run into a result or the TerminalError it means. */
export function interpretRun(run: CliRun, command: CliCommand, method: string, shown: string): Reply {
  if (run.timedOut) throw new TerminalError('timeout', `${shown}: no answer in time`, { method });
  if (run.truncated) {
    throw new TerminalError('protocol', `${shown}: output larger than ${MAX_OUTPUT_BYTES >> 20} MiB`, {
      method,
    });
  }
  if (run.exitCode === null) {
    throw new TerminalError('other', `${shown}: killed by ${run.signal ?? 'a signal'}`, { method });
  }
  if (run.exitCode === 2) {
    throw new TerminalError('usage', `${shown}: ${firstLine(run.stderr) || 'usage error'}`, { method });
  }
  if (run.exitCode !== 0) {
    const error = stderrError(run.stderr, method);
    if (error) throw error;
    const why = firstLine(run.stderr) || `exited with code ${run.exitCode}`;
    throw new TerminalError('other', `${shown}: ${why}`, { method });
  }
  switch (command.output) {
    case 'none':
      return { type: 'ok' };
    case 'text':
      return { type: 'pane_read', read: { source: command.source ?? 'recent', text: run.stdout } };
    case 'listing':
      return listingReply(run.stdout, method, shown);
    case 'envelope':
      return replyOf(parseJson(run.stdout, method, shown), undefined, method);
  }
}

function parseJson(text: string, method: string, shown: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TerminalError(
      'protocol',
      `${shown}: output is not JSON: ${JSON.stringify(text.slice(0, 80))}`,
      {
        method,
      },
    );
  }
}

/** `herdr api snapshot` may print the envelope or the bare listing; both become a reply. */
function listingReply(stdout: string, method: string, shown: string): Reply {
  const value = parseJson(stdout, method, shown) as Record<string, unknown> | null;
  if (value && typeof value === 'object' && ('result' in value || 'error' in value)) {
    return replyOf(value, undefined, method);
  }
  if (value && typeof value === 'object' && 'snapshot' in value)
    return { type: 'session_snapshot', ...value };
  return { type: 'session_snapshot', snapshot: value };
}

export class CliTransport implements Transport {
  readonly kind = 'cli';

  constructor(
    readonly target: string,
    private readonly env: NodeJS.ProcessEnv,
    /** Global arguments before the command, such as `--machine <id>`. */
    private readonly globalArgs: string[] = [],
    private readonly routineMs = ROUTINE_TIMEOUT_MS,
  ) {}

  async call(method: string, params: Record<string, unknown>, options?: CallOptions): Promise<Reply> {
    const command = cliCommand(method, params);
    const args = [...this.globalArgs, ...command.args];
    const shown = `herdr ${args.slice(0, this.globalArgs.length + 2).join(' ')}`;
    const run = await runHerdr(this.target, args, {
      env: this.env,
      timeoutMs: deadlineOf(options, this.routineMs),
      signal: options?.signal,
    });
    return interpretRun(run, command, method, shown);
  }
}
