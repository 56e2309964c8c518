// The one interface for running a host-side verb (`dogsled host <verb> args…`) on a host, and the
// one error for a host that could not be reached. Three implementations here: local.ts (a child
// process on this host), openssh.ts (one `ssh` per call) and pool.ts (one ssh2 connection per peer
// carrying an RPC channel); service/bus has the fourth, request/reply on the fleet bus, and
// hosts/peer-read-client.ts the fifth, a command's snapshot reads through this host's service's pool. A verb's own
// failure on a reachable host is a reply, never an unreachable error.

import { DogsledError } from '../core/common/errors.js';
import type { UnreachableCategory } from '../core/fleet/unreachable.js';
import { clip, stripEscapes } from '../core/text/clean.js';

export interface PeerTarget {
  /** What ssh is given: a Host alias of ~/.ssh/config, a name, or `user@host`. */
  host: string;
  /** The argv prefix that runs dogsled there (config `remote_command`). */
  remoteCommand: readonly string[];
  /** A host met on the fleet bus: its id there. Its verbs travel over the bus, never ssh. */
  bus?: string;
}

export interface ExecOptions {
  signal?: AbortSignal;
  /** The whole call, connection included (default ROUTINE_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Bytes for the verb's stdin (a message, a quota snapshot); nothing when absent. */
  input?: string | Uint8Array;
  /**
   * The largest reply taken, in bytes on the wire: a longer one is refused as `remote command
   * failed` before it is parsed (default: the transport's own limit, 64 MiB).
   */
  maxReplyBytes?: number;
}

/** What the verb answered. `exitCode` is what `dogsled host <verb>` exits with on that host. */
export type VerbReply =
  | { ok: true; value: unknown; exitCode: number; durationMs: number }
  | { ok: false; error: string; exitCode: number; durationMs: number };

export interface Transport {
  readonly kind: 'local' | 'openssh' | 'pool' | 'bus' | 'service';
  /** `argv` is the verb and its arguments: `['snapshot']`, `['logs', 'j-3']`. Each travels as data. */
  exec(target: PeerTarget, argv: readonly string[], options?: ExecOptions): Promise<VerbReply>;
  /** Ends what the transport keeps open (the pool's connections); a no-op for the others. */
  close(): Promise<void>;
}

/** Routine calls have 30-second limits (spec, "Host service and status"). */
export const ROUTINE_TIMEOUT_MS = 30_000;
/** Node's timers fire at once past 2^31-1 ms: a longer deadline means "about 24 days", not "now". */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The call's deadline: the routine one when absent or not a number, at least 1 ms, at most a timer's reach. */
export function deadlineOf(options: { timeoutMs?: number | undefined }): number {
  const ms = options.timeoutMs;
  if (ms === undefined || Number.isNaN(ms)) return ROUTINE_TIMEOUT_MS;
  return Math.min(Math.max(1, Math.round(ms)), MAX_TIMER_MS);
}

/** Raw diagnostic text kept for a debug log: escapes stripped, bounded. */
const DETAIL_CHARS = 2_000;

/**
 * A hot bundle and the cold file it loads for a call to a bus host (scripts/build.mjs, COLD) each
 * have a copy of this class: the brand lets the caller's copy recognise the callee's error.
 */
const UNREACHABLE_BRAND = Symbol.for('dogsled.UnreachableError');

/** `unreachable: <category>`; the raw SSH text, stripped of escapes, is `detail` (debug only). */
export class UnreachableError extends DogsledError {
  readonly detail: string;

  constructor(
    readonly host: string,
    readonly category: UnreachableCategory,
    detail = '',
    /** When the pool tries this host again (its backoff); null when it may be tried at once. */
    readonly retryAtMs: number | null = null,
  ) {
    super(`${host}: unreachable: ${category}`);
    this.name = 'UnreachableError';
    this.detail = debugText(detail);
  }
}
Object.defineProperty(UnreachableError.prototype, UNREACHABLE_BRAND, { value: true });
Object.defineProperty(UnreachableError, Symbol.hasInstance, {
  value(value: unknown): boolean {
    return typeof value === 'object' && value !== null && UNREACHABLE_BRAND in value;
  },
});

/** The detail of a reply refused for its size. */
export function oversizeDetail(maxBytes: number, bytes?: number): string {
  return `a reply ${bytes === undefined ? 'over' : `of ${bytes} bytes, over`} the ${maxBytes}-byte limit`;
}

export function debugText(raw: string): string {
  return clip(stripEscapes(raw).trim(), DETAIL_CHARS);
}

/** A host name ssh could take for an option, or that holds what no host name holds. */
export function checkHost(host: string): void {
  if (host === '' || host.startsWith('-') || /[\s\u0000-\u001f\u007f]/.test(host)) {
    throw new DogsledError(`peer ${JSON.stringify(host)}: not a host name ssh can take`);
  }
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}
