// A command's peer reads when `dogsled serve` runs on this host: each `host snapshot` goes to the
// service over peer-read.sock and travels on the service's pooled ssh2 connection (no ssh process,
// no Node start on the peer), then comes back to be judged, cached and shown by the command's own
// code, exactly as its own read would be. The command reads the peer itself, through OpenSSH, when
// no service listens, the socket refuses, the service does not greet it in time or falls silent
// mid-read (frozen, starved), or declines; whatever happens, the read ends within the deadline the
// caller gave it.

import {
  PEER_READ_ENVELOPE_BYTES,
  PEER_READ_HELLO,
  PEER_READ_VERB,
  type PeerReadAnswer,
  parsePeerReadAnswer,
  peerReadLine,
} from '../core/fleet/peer-read-wire.js';
import { stripEscapes } from '../core/text/clean.js';
import type { StateIO } from '../state/io.js';
import { OpenSshTransport } from '../transport/openssh.js';
import {
  abortReason,
  deadlineOf,
  type ExecOptions,
  oversizeDetail,
  type PeerTarget,
  type Transport,
  UnreachableError,
  type VerbReply,
} from '../transport/types.js';

/**
 * How long a service has to greet a connection. A live one does within a millisecond or two, a busy
 * one within its longest synchronous step; past this it is taken for frozen and the command reads
 * the peer itself with what is left (never less than three quarters of its deadline).
 */
export const PEER_READ_HELLO_MS = 500;

/**
 * How long a greeted service may stay silent (it beats every PEER_READ_BEAT_MS while it reads): past
 * this it is taken for frozen mid-read, and the command reads the peer itself with what is left.
 */
export const PEER_READ_SILENCE_MS = 1_000;

/** Without a bound of the caller's: the transports' own (64 MiB). */
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

type Asked =
  | { kind: 'answer'; answer: PeerReadAnswer }
  /** No service, refused, closed before answering, not understood; `silent`: no greeting, or no beat, in time. */
  | { kind: 'yourself'; silent?: true }
  /** Greeted, then nothing within the deadline. */
  | { kind: 'timeout' }
  | { kind: 'oversize'; bytes: number }
  | { kind: 'aborted' };

export class ServicePeerReads implements Transport {
  readonly kind = 'service';
  /** The service did not greet a call of this transport: later calls do not wait for it again. */
  private silent = false;

  constructor(
    private readonly socketPath: string,
    private readonly own: Transport,
  ) {}

  async exec(target: PeerTarget, argv: readonly string[], options: ExecOptions = {}): Promise<VerbReply> {
    if (
      this.silent ||
      argv.length !== 1 ||
      argv[0] !== PEER_READ_VERB ||
      options.input !== undefined ||
      target.bus !== undefined
    )
      return this.own.exec(target, argv, options);
    const timeoutMs = deadlineOf(options);
    const started = performance.now();
    const maxBytes = options.maxReplyBytes ?? DEFAULT_MAX_BYTES;
    const asked = await ask(
      this.socketPath,
      peerReadLine({
        v: 1,
        verb: PEER_READ_VERB,
        host: target.host,
        remote: [...target.remoteCommand],
        timeout_ms: timeoutMs,
        max_bytes: maxBytes,
      }),
      { timeoutMs, maxBytes: maxBytes + PEER_READ_ENVELOPE_BYTES, signal: options.signal },
    );
    switch (asked.kind) {
      case 'aborted':
        throw abortReason(options.signal ?? AbortSignal.abort());
      case 'timeout':
        throw new UnreachableError(target.host, 'timeout', 'no answer from the service within the deadline');
      case 'oversize':
        throw new UnreachableError(
          target.host,
          'remote command failed',
          oversizeDetail(maxBytes, asked.bytes),
        );
      case 'yourself': {
        if (asked.silent) this.silent = true;
        const left = Math.max(1, timeoutMs - (performance.now() - started));
        return this.own.exec(target, argv, { ...options, timeoutMs: left });
      }
      case 'answer': {
        const { answer } = asked;
        if ('declined' in answer) {
          const left = Math.max(1, timeoutMs - (performance.now() - started));
          return this.own.exec(target, argv, { ...options, timeoutMs: left });
        }
        if ('unreachable' in answer)
          throw new UnreachableError(target.host, answer.unreachable, answer.detail);
        const { reply } = answer;
        // A refusal is shown in a warning: as escape-free as the one-shot reader makes it.
        return reply.ok ? reply : { ...reply, error: stripEscapes(reply.error).trim() };
      }
    }
  }

  async close(): Promise<void> {
    await this.own.close();
  }
}

/** Peer reads through this host's service when one answers on its socket, else through OpenSSH. */
export function peerReadTransport(io: Pick<StateIO, 'paths'> & { env: NodeJS.ProcessEnv }): Transport {
  return new ServicePeerReads(io.paths.peerReadSock, new OpenSshTransport({ env: io.env }));
}

function ask(
  path: string,
  request: string,
  options: { timeoutMs: number; maxBytes: number; signal: AbortSignal | undefined },
): Promise<Asked> {
  const { signal } = options;
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
  return new Promise((resolve) => {
    const socket = process.getBuiltinModule('node:net').connect(path);
    const chunks: Buffer[] = [];
    let size = 0;
    let greeted = false;
    let settled = false;
    const done = (asked: Asked): void => {
      if (settled) return;
      settled = true;
      clearTimeout(helloTimer);
      clearTimeout(silence);
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(asked);
    };
    const onAbort = (): void => done({ kind: 'aborted' });
    signal?.addEventListener('abort', onAbort, { once: true });
    const helloTimer = setTimeout(
      () => done({ kind: 'yourself', silent: true }),
      Math.min(PEER_READ_HELLO_MS, Math.max(1, options.timeoutMs / 4)),
    );
    // Armed at the greeting and again at every byte after it: a beat, or the answer.
    let silence: NodeJS.Timeout | undefined;
    const heard = (): void => {
      clearTimeout(silence);
      silence = setTimeout(
        () => done({ kind: 'yourself', silent: true }),
        Math.min(PEER_READ_SILENCE_MS, Math.max(1, options.timeoutMs / 4)),
      );
    };
    const deadline = setTimeout(() => done({ kind: 'timeout' }), options.timeoutMs);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      if (greeted) heard();
      chunks.push(chunk);
      size += chunk.length;
      if (!greeted) {
        if (size < PEER_READ_HELLO.length) return;
        const all = Buffer.concat(chunks);
        if (all.subarray(0, PEER_READ_HELLO.length).toString('latin1') !== PEER_READ_HELLO) {
          done({ kind: 'yourself' });
          return;
        }
        greeted = true;
        clearTimeout(helloTimer);
        heard();
        chunks.length = 0;
        chunks.push(all.subarray(PEER_READ_HELLO.length));
        size = all.length - PEER_READ_HELLO.length;
      }
      if (size > options.maxBytes) {
        done({ kind: 'oversize', bytes: size });
        return;
      }
      if (!chunk.includes(0x0a) && chunks.length > 1) return;
      const all = Buffer.concat(chunks);
      const end = all.indexOf(0x0a);
      if (end < 0) return;
      const answer = parsePeerReadAnswer(all.subarray(0, end).toString('utf8'));
      done(answer === undefined ? { kind: 'yourself' } : { kind: 'answer', answer });
    });
    // Closed before its answer (the service stopping), or never there: the command reads it itself.
    socket.on('close', () => done({ kind: 'yourself' }));
    socket.on('error', () => done({ kind: 'yourself' }));
  });
}
