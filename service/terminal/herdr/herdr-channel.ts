// How the Herdr backend reaches a server: one method call in, one typed result out. The socket
// transport is the normal path; the CLI transport (cli.ts) is the fallback and the only way to
// forward to a saved machine. Both apply the routine deadline unless the call says otherwise.

import type { Reply } from './envelope.js';
import { type SameReply, type SocketCallOptions, socketCall } from './herdr-socket.js';

export interface CallOptions {
  /** Overrides the routine deadline; `null` means none (waits that carry their own timeout). */
  timeoutMs?: number | null;
  signal?: AbortSignal;
  /** The last reply to the same call, handed back when its bytes are the same (the socket only). */
  same?: SameReply;
}

export interface Transport {
  readonly kind: 'socket' | 'cli';
  /** What this transport talks to, for `port.why` and messages: a socket path or a binary. */
  readonly target: string;
  call(method: string, params: Record<string, unknown>, options?: CallOptions): Promise<Reply>;
}

/** Herdr's routine-call deadline for dogsled (the server has none of its own). */
export const ROUTINE_TIMEOUT_MS = 30_000;

export function deadlineOf(options: CallOptions | undefined, routineMs: number): number | undefined {
  if (options?.timeoutMs === null) return undefined;
  return options?.timeoutMs ?? routineMs;
}

export class SocketTransport implements Transport {
  readonly kind = 'socket';

  constructor(
    readonly target: string,
    private readonly routineMs = ROUTINE_TIMEOUT_MS,
  ) {}

  call(method: string, params: Record<string, unknown>, options?: CallOptions): Promise<Reply> {
    const socketOptions: SocketCallOptions = { timeoutMs: deadlineOf(options, this.routineMs) };
    if (options?.signal) socketOptions.signal = options.signal;
    if (options?.same) socketOptions.same = options.same;
    return socketCall(this.target, method, params, socketOptions);
  }
}
