// One `ssh` process per call, for one-shot CLI calls: `ssh -o BatchMode=yes -- HOST LINE`, honouring
// the user's ~/.ssh/config (aliases, users, keys, ProxyJump, ControlMaster). LINE is
// `remote_command + ["host", verb, …args]` with every word POSIX-quoted, so the peer's shell hands
// dogsled exactly the argv we hold. ssh's own failures (exit 255) become an unreachable category.

import { shellLine } from '../core/common/shell-quote.js';
import { sshFailureCategory } from '../core/fleet/unreachable.js';
import { runProcess } from '../process/run-process.js';
import { oneShotDetail, oneShotReply } from './one-shot.js';
import {
  abortReason,
  checkHost,
  deadlineOf,
  type ExecOptions,
  oversizeDetail,
  type PeerTarget,
  type Transport,
  UnreachableError,
  type VerbReply,
} from './types.js';

export interface OpenSshOptions {
  /** The ssh binary (default `ssh` on PATH). */
  bin?: string;
  /** Options placed before the host, such as `-F FILE` (tests) or `-o ControlPath=…` (benchmarks). */
  extraArgs?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Receives the raw text of each failure (escapes stripped), for a debug log. */
  debug?: (line: string) => void;
}

/** ssh's exit status for its own errors; the remote command's status otherwise. */
const SSH_ERROR_EXIT = 255;

/** The remote command line for a verb: every word quoted, nothing spliced. */
export function remoteLine(target: PeerTarget, argv: readonly string[]): string {
  return shellLine([...target.remoteCommand, 'host', ...argv]);
}

/** The full ssh argv for a call (exported for the benchmark and tests). */
export function sshArgv(
  target: PeerTarget,
  argv: readonly string[],
  timeoutMs: number,
  extra: readonly string[] = [],
): string[] {
  checkHost(target.host);
  return [
    ...extra,
    '-o',
    'BatchMode=yes',
    // Errors only, whatever the user's LogLevel: QUIET would hide the text a category comes from.
    '-o',
    'LogLevel=ERROR',
    '-o',
    `ConnectTimeout=${Math.max(1, Math.ceil(timeoutMs / 1000))}`,
    // No terminal and no escape character: the answer is data, and so is the input.
    '-T',
    '-e',
    'none',
    '--',
    target.host,
    remoteLine(target, argv),
  ];
}

export class OpenSshTransport implements Transport {
  readonly kind = 'openssh';

  constructor(private readonly options: OpenSshOptions = {}) {}

  async exec(target: PeerTarget, argv: readonly string[], options: ExecOptions = {}): Promise<VerbReply> {
    const timeoutMs = deadlineOf(options);
    const bin = this.options.bin ?? 'ssh';
    const args = sshArgv(target, argv, timeoutMs, this.options.extraArgs);
    // A missing ssh binary is this host's problem, not the peer's: its SpawnError says so as is.
    const result = await runProcess(bin, args, {
      env: this.options.env ?? process.env,
      timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.maxReplyBytes === undefined ? {} : { maxOutputBytes: options.maxReplyBytes }),
    });
    if (result.aborted && options.signal) throw abortReason(options.signal);
    if (result.timedOut) throw this.fail(target, 'timeout', oneShotDetail(result));
    // Past the cap the runner stopped ssh: the answer is too large to be dogsled's, not a lost link.
    if (result.truncated && options.maxReplyBytes !== undefined) {
      throw this.fail(target, 'remote command failed', oversizeDetail(options.maxReplyBytes));
    }
    const stderr = result.stderr.toString('utf8');
    if (result.exitCode === SSH_ERROR_EXIT) {
      const category = sshFailureCategory(stderr);
      if (category) throw this.fail(target, category, oneShotDetail(result));
    }
    const reply = oneShotReply(result);
    if (reply) return reply;
    // ssh killed by a signal it did not get from us: the connection went with it.
    const category = result.signal !== null ? 'connection lost' : 'remote command failed';
    throw this.fail(target, category, oneShotDetail(result));
  }

  async close(): Promise<void> {}

  private fail(target: PeerTarget, category: UnreachableError['category'], raw: string): UnreachableError {
    const error = new UnreachableError(target.host, category, raw);
    this.options.debug?.(`${target.host}: ${category}: ${error.detail}`);
    return error;
  }
}
