// This host as a transport: `dogsled host <verb> args…` as a child process of this very build, so
// the local host answers through the same verb code and the same reply reading as a peer does. The
// target's remote_command is not used: the local host is always this dogsled.

import { runProcess } from '../process/run-process.js';
import { selfInvocation } from '../process/self-invocation.js';
import { oneShotDetail, oneShotReply } from './one-shot.js';
import {
  abortReason,
  deadlineOf,
  type ExecOptions,
  oversizeDetail,
  type PeerTarget,
  type Transport,
  UnreachableError,
  type VerbReply,
} from './types.js';

export interface LocalOptions {
  /** `[node, dogsled.cjs]`; default: the build this process runs. */
  self?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

export class LocalTransport implements Transport {
  readonly kind = 'local';

  constructor(private readonly options: LocalOptions = {}) {}

  async exec(target: PeerTarget, argv: readonly string[], options: ExecOptions = {}): Promise<VerbReply> {
    const [node, ...prefix] = this.options.self ?? selfInvocation();
    if (node === undefined) throw new Error('LocalTransport: empty self invocation');
    const result = await runProcess(node, [...prefix, 'host', ...argv], {
      env: this.options.env ?? process.env,
      timeoutMs: deadlineOf(options),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.maxReplyBytes === undefined ? {} : { maxOutputBytes: options.maxReplyBytes }),
    });
    if (result.aborted && options.signal) throw abortReason(options.signal);
    if (result.timedOut) throw new UnreachableError(target.host, 'timeout', oneShotDetail(result));
    if (result.truncated && options.maxReplyBytes !== undefined) {
      throw new UnreachableError(target.host, 'remote command failed', oversizeDetail(options.maxReplyBytes));
    }
    const reply = oneShotReply(result);
    if (reply) return reply;
    throw new UnreachableError(target.host, 'remote command failed', oneShotDetail(result));
  }

  async close(): Promise<void> {}
}
