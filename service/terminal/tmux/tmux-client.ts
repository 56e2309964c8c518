// Running one tmux command against the chosen server through the one process runner: argv only,
// a deadline, the caller's environment. tmux's failures become TerminalErrors: a missing target is
// pane/tab/workspace_not_found, no server is `unreachable`, anything else `other` with tmux's line.

import { squeezedLine } from '../../core/text/clean.js';
import { runProcess, SpawnError } from '../../process/run-process.js';
import { TerminalError, type TerminalErrorCode } from '../terminal-errors.js';
import { literalArg, type RowFormat } from './tmux-argv.js';

export class TmuxClient {
  constructor(
    /** The server's socket (`-S`), or undefined for tmux's default server. */
    readonly socket: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
    private readonly routineMs: number,
  ) {}

  /** Where this client points, for messages: the socket, or tmux's default server. */
  get target(): string {
    return this.socket ?? 'the default tmux server';
  }

  /** Runs `tmux <args>`; every argument is made literal first. Resolves with stdout. */
  async run(
    args: readonly string[],
    method: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<string> {
    const argv = [...(this.socket ? ['-S', this.socket] : []), ...args.map(literalArg)];
    let result: Awaited<ReturnType<typeof runProcess>>;
    try {
      result = await runProcess('tmux', argv, {
        env: this.env,
        timeoutMs: this.routineMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (error instanceof SpawnError) {
        throw new TerminalError('unreachable', `tmux: cannot run tmux (${error.code ?? 'not found'})`, {
          method,
          cause: error,
        });
      }
      throw error;
    }
    if (result.timedOut) {
      throw new TerminalError(
        'timeout',
        `tmux ${args[0]}: no answer from ${this.target} in ${this.routineMs} ms`,
        {
          method,
        },
      );
    }
    if (result.aborted) throw new TerminalError('timeout', `tmux ${args[0]}: abandoned`, { method });
    if (result.exitCode !== 0)
      throw failure(result.stderr.toString('utf8'), args[0] ?? '', method, this.target);
    return result.stdout.toString('utf8');
  }

  /** Rows of a list command; no server running is an empty list, not an error. */
  async rows<K extends string>(
    args: readonly string[],
    format: RowFormat<K>,
    method: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Record<K, string>[]> {
    try {
      return format.parse(await this.run([...args, '-F', format.format], method, options));
    } catch (error) {
      if (error instanceof TerminalError && error.code === 'unreachable' && error.herdrCode === 'no_server')
        return [];
      throw error;
    }
  }
}

const NOT_FOUND: [RegExp, TerminalErrorCode][] = [
  [/can't find pane/, 'pane_not_found'],
  [/can't find window/, 'tab_not_found'],
  [/can't find session/, 'workspace_not_found'],
];

function failure(stderr: string, verb: string, method: string, target: string): TerminalError {
  const line = squeezedLine(stderr.trim().split('\n')[0] ?? '') || 'failed';
  if (/^no server running on |^error connecting to /.test(line)) {
    return new TerminalError('unreachable', `tmux: no server answers at ${target} (${line})`, {
      method,
      herdrCode: 'no_server',
    });
  }
  for (const [pattern, code] of NOT_FOUND) {
    if (pattern.test(line)) return new TerminalError(code, `tmux ${verb}: ${line}`, { method });
  }
  return new TerminalError('other', `tmux ${verb}: ${line}`, { method, herdrCode: 'tmux' });
}
