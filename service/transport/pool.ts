// The service's transport for repeated reads: one ssh2 connection per peer, kept open, carrying one
// `dogsled host rpc` channel on which requests overlap. A failed connection attempt is retried after
// the shared backoff (10 s doubling, with jitter); until then calls fail at once with the last
// category and the retry time. A peer reached through ProxyJump/ProxyCommand goes through OpenSSH.
// The owner's stop (`signal`) or `close()` ends every call and every connection being made at once:
// a frozen peer never holds its owner's shutdown.

import { backoffDelayMs } from '../core/common/backoff.js';
import { DogsledError } from '../core/common/errors.js';
import { OpenSshTransport } from './openssh.js';
import { type ResolvedHost, resolveHost } from './ssh-config.js';
import type { Ssh2Connection } from './ssh2-connect.js';
import {
  abortReason,
  deadlineOf,
  type ExecOptions,
  type PeerTarget,
  type Transport,
  UnreachableError,
  type VerbReply,
} from './types.js';

export interface PoolOptions {
  /** The ssh binary and options used for `ssh -G` and the OpenSSH fallback. */
  ssh?: { bin?: string; extraArgs?: readonly string[] };
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  random?: () => number;
  /** Receives the raw text of each failure (escapes stripped), for a debug log. */
  debug?: (line: string) => void;
  keepaliveMs?: number;
  /** The owner's stop (the service's): every call, and every connection being made, ends with it. */
  signal?: AbortSignal;
}

export interface PeerConnectionState {
  connected: boolean;
  /** Failed connection attempts in a row. */
  failures: number;
  retryAtMs: number | null;
  lastError: UnreachableError | undefined;
}

interface Peer {
  connection: Ssh2Connection | undefined;
  connecting: Promise<Ssh2Connection | 'proxy'> | undefined;
  proxied: boolean;
  failures: number;
  retryAtMs: number | null;
  lastError: UnreachableError | undefined;
}

const KEEPALIVE_MS = 15_000;
/** The rpc server's heartbeat while a request runs (service/host-verbs/rpc-server.ts). */
const HEARTBEAT_MS = 1_000;

export class SshPool implements Transport {
  readonly kind = 'pool';
  private readonly peers = new Map<string, Peer>();
  private readonly openssh: OpenSshTransport;
  private readonly now: () => number;
  private readonly random: () => number;
  private closing = false;
  /** Aborts at the owner's stop or at close(), a DogsledError its reason. */
  private readonly closer = new AbortController();
  private readonly stopped: AbortSignal;

  constructor(private readonly options: PoolOptions = {}) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    // A call the owner's stop ends fails as a DogsledError, like one made after close(): a launch
    // cut short is then one line, never a stray AbortError reported as a bug.
    const stop = options.signal;
    const onStop = (): void => {
      if (!this.closer.signal.aborted) this.closer.abort(new DogsledError('transport: the pool is closed'));
    };
    if (stop?.aborted) onStop();
    else stop?.addEventListener('abort', onStop, { once: true });
    this.stopped = this.closer.signal;
    this.openssh = new OpenSshTransport({
      ...(options.ssh?.bin ? { bin: options.ssh.bin } : {}),
      ...(options.ssh?.extraArgs ? { extraArgs: options.ssh.extraArgs } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.debug ? { debug: options.debug } : {}),
    });
  }

  async exec(target: PeerTarget, argv: readonly string[], options: ExecOptions = {}): Promise<VerbReply> {
    const [verb, ...args] = argv;
    if (verb === undefined) throw new DogsledError('transport: no verb to run');
    if (this.closing || this.stopped.aborted) throw new DogsledError('transport: the pool is closed');
    const timeoutMs = deadlineOf(options);
    const started = performance.now();
    const peer = this.peer(target);
    const signal = options.signal ? AbortSignal.any([options.signal, this.stopped]) : this.stopped;
    const connection = await abortable(this.connection(target, peer, timeoutMs), signal);
    if (connection === 'proxy') return this.openssh.exec(target, argv, { ...options, signal });
    const sentAt = performance.now();
    const remaining = Math.max(1, timeoutMs - (sentAt - started));
    try {
      return await connection.channel.request(verb, args, {
        timeoutMs: remaining,
        signal,
        ...(options.input === undefined ? {} : { input: options.input }),
        ...(options.maxReplyBytes === undefined ? {} : { maxReplyBytes: options.maxReplyBytes }),
      });
    } catch (error) {
      // Silence for the whole wait, heartbeats included: the peer hangs (a frozen host, a dead
      // route). A wait shorter than two beats proves nothing, and a slow verb keeps beating.
      if (
        error instanceof UnreachableError &&
        error.category === 'timeout' &&
        remaining > 2 * HEARTBEAT_MS &&
        connection.channel.lastHeardAt < sentAt
      ) {
        this.drop(peer, connection);
        this.failed(target, peer, error);
      }
      throw error;
    }
  }

  /** Forgets the backoff of `host`: the next call connects at once (`dogsled retry HOST`). */
  retry(host: string): void {
    for (const [key, peer] of this.peers) {
      if (key.startsWith(`${host}\n`)) {
        peer.failures = 0;
        peer.retryAtMs = null;
      }
    }
  }

  /** Whether the owner stopped or closed the pool: a call that failed now may have been cut short. */
  get stopping(): boolean {
    return this.stopped.aborted;
  }

  state(target: PeerTarget): PeerConnectionState {
    const peer = this.peers.get(keyOf(target));
    return {
      connected: Boolean(peer?.connection && !peer.connection.channel.closed),
      failures: peer?.failures ?? 0,
      retryAtMs: peer?.retryAtMs ?? null,
      lastError: peer?.lastError,
    };
  }

  async close(): Promise<void> {
    this.closing = true;
    // Connections still being made end now rather than at their deadline (up to 30 s on a frozen peer).
    if (!this.closer.signal.aborted) this.closer.abort(new DogsledError('transport: the pool is closed'));
    await Promise.all([...this.peers.values()].map((peer) => peer.connecting?.catch(() => undefined)));
    for (const peer of this.peers.values()) if (peer.connection) this.drop(peer, peer.connection);
    this.peers.clear();
  }

  private peer(target: PeerTarget): Peer {
    const key = keyOf(target);
    let peer = this.peers.get(key);
    if (!peer) {
      peer = {
        connection: undefined,
        connecting: undefined,
        proxied: false,
        failures: 0,
        retryAtMs: null,
        lastError: undefined,
      };
      this.peers.set(key, peer);
    }
    return peer;
  }

  private connection(target: PeerTarget, peer: Peer, timeoutMs: number): Promise<Ssh2Connection | 'proxy'> {
    if (peer.proxied) return Promise.resolve('proxy');
    if (peer.connection && !peer.connection.channel.closed) return Promise.resolve(peer.connection);
    if (peer.connecting) return peer.connecting;
    if (peer.retryAtMs !== null && this.now() < peer.retryAtMs && peer.lastError) {
      const last = peer.lastError;
      return Promise.reject(new UnreachableError(target.host, last.category, last.detail, peer.retryAtMs));
    }
    peer.connecting = this.connect(target, peer, timeoutMs).finally(() => {
      peer.connecting = undefined;
    });
    return peer.connecting;
  }

  private async connect(
    target: PeerTarget,
    peer: Peer,
    timeoutMs: number,
  ): Promise<Ssh2Connection | 'proxy'> {
    const started = performance.now();
    const resolved: ResolvedHost = await resolveHost(target.host, {
      ...this.options.ssh,
      ...(this.options.env ? { env: this.options.env } : {}),
      timeoutMs,
      signal: this.stopped,
    });
    if (resolved.proxy !== undefined) {
      peer.proxied = true;
      return 'proxy';
    }
    const { connectPeer } = await import('./ssh2-connect.js');
    try {
      const connection = await connectPeer({
        target,
        resolved,
        deadlineMs: Math.max(1, timeoutMs - (performance.now() - started)),
        env: this.options.env ?? process.env,
        keepaliveMs: this.options.keepaliveMs ?? KEEPALIVE_MS,
        signal: this.stopped,
      });
      peer.connection = connection;
      peer.failures = 0;
      peer.retryAtMs = null;
      peer.lastError = undefined;
      connection.channel.onClose((error) => {
        if (peer.connection === connection) peer.connection = undefined;
        this.options.debug?.(`${target.host}: rpc channel closed: ${error.detail}`);
      });
      if (this.closing) this.drop(peer, connection);
      return connection;
    } catch (error) {
      if (error instanceof UnreachableError) this.failed(target, peer, error);
      throw error;
    }
  }

  private failed(target: PeerTarget, peer: Peer, error: UnreachableError): void {
    peer.retryAtMs = this.now() + backoffDelayMs(peer.failures, this.random());
    peer.failures += 1;
    peer.lastError = error;
    this.options.debug?.(`${target.host}: ${error.category}: ${error.detail}`);
  }

  private drop(peer: Peer, connection: Ssh2Connection): void {
    if (peer.connection === connection) peer.connection = undefined;
    connection.channel.close();
    connection.destroy();
  }
}

/** One connection per host and remote command: a different remote_command is a different channel. */
function keyOf(target: PeerTarget): string {
  return `${target.host}\n${JSON.stringify(target.remoteCommand)}`;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
