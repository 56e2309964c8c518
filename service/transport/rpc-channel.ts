// The caller's end of one `dogsled host rpc` channel, over any pair of streams (an ssh2 exec channel,
// or a local child's stdio in tests). It waits for the server's hello before it counts as open, then
// sends requests with increasing ids and matches replies by id, each with its own deadline. Output
// that is not frames, or an exit before the hello, means the remote command failed.

import type { Readable, Writable } from 'node:stream';
import { encodeFrame, FrameDecoder, MAX_FRAME_BYTES } from './frames.js';
import { abortReason, debugText, oversizeDetail, UnreachableError, type VerbReply } from './types.js';
import { FatalSchema, HelloSchema, ReplySchema } from './wire.js';

export interface ChannelStreams {
  /** The server's stdout. */
  readable: Readable;
  /** The server's stdin. */
  writable: Writable;
  /** The server's stderr, kept (bounded) for the debug text of a failure. */
  stderr?: Readable;
  /** Ends the channel (and whatever carries it). */
  destroy: () => void;
}

export interface RequestOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  input?: string | Uint8Array;
  /** The largest reply frame taken; a longer one fails this request as `remote command failed`. */
  maxReplyBytes?: number;
}

interface Pending {
  resolve: (reply: VerbReply) => void;
  reject: (error: unknown) => void;
  started: number;
  maxBytes: number;
}

/** Stderr kept for debug text: the last bytes are the ones that explain. */
const STDERR_KEEP = 4096;

export class RpcChannel {
  private readonly pending = new Map<number, Pending>();
  private readonly decoder = new FrameDecoder();
  private nextId = 1;
  private stderr = '';
  private closedWith: UnreachableError | undefined;
  private closeListeners: Array<(error: UnreachableError) => void> = [];
  private helloWaiter: { resolve: () => void; reject: (error: UnreachableError) => void } | undefined;
  /** performance.now() of the last byte from the server. */
  lastHeardAt = performance.now();
  version = '';

  private constructor(
    private readonly host: string,
    private readonly streams: ChannelStreams,
  ) {
    streams.readable.on('data', (chunk: Buffer) => this.onData(chunk));
    streams.readable.on('error', (error: Error) => this.fail('connection lost', error.message));
    streams.readable.on('close', () =>
      this.fail(this.helloWaiter ? 'remote command failed' : 'connection lost', 'closed'),
    );
    streams.readable.on('end', () =>
      this.fail(this.helloWaiter ? 'remote command failed' : 'connection lost', 'ended'),
    );
    streams.writable.on('error', (error: Error) => this.fail('connection lost', error.message));
    streams.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
  }

  /** An open channel once the server said hello; rejects (and destroys the streams) otherwise. */
  static async open(host: string, streams: ChannelStreams, timeoutMs: number): Promise<RpcChannel> {
    const channel = new RpcChannel(host, streams);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => channel.fail('timeout', 'no hello from the rpc server'), timeoutMs);
      channel.helloWaiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
    return channel;
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  onClose(listener: (error: UnreachableError) => void): void {
    if (this.closedWith) listener(this.closedWith);
    else this.closeListeners.push(listener);
  }

  request(verb: string, args: readonly string[], options: RequestOptions): Promise<VerbReply> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (options.signal?.aborted) return Promise.reject(abortReason(options.signal));
    const id = this.nextId++;
    const input = typeof options.input === 'string' ? Buffer.from(options.input) : options.input;
    const frame = encodeFrame({ t: 'req', id, verb, args: [...args], ...(input ? { input } : {}) });
    return new Promise<VerbReply>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new UnreachableError(this.host, 'timeout', `no reply to ${verb} within ${options.timeoutMs} ms`),
        );
      }, options.timeoutMs);
      const onAbort = (): void => {
        cleanup();
        reject(abortReason(options.signal as AbortSignal));
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        started: performance.now(),
        maxBytes: Math.min(options.maxReplyBytes ?? MAX_FRAME_BYTES, MAX_FRAME_BYTES),
        resolve: (reply) => {
          cleanup();
          resolve(reply);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      this.streams.writable.write(frame);
    });
  }

  /** Ends the channel; requests still waiting fail as `connection lost`. */
  close(): void {
    this.fail('connection lost', 'closed by the caller');
  }

  private onData(chunk: Buffer): void {
    this.lastHeardAt = performance.now();
    let frames: Array<{ value: unknown; bytes: number }>;
    try {
      frames = this.decoder.pushSized(chunk);
    } catch (error) {
      this.fail(
        'remote command failed',
        `${(error as Error).message}: ${chunk.subarray(0, 200).toString('utf8')}`,
      );
      return;
    }
    for (const frame of frames) this.onFrame(frame.value, frame.bytes);
    // A frame on its way that no waiting request would take is not buffered to the end: with only
    // bounded requests waiting (snapshot reads), a peer answering megabytes more ends the channel.
    const coming = this.decoder.announced;
    if (coming !== undefined && !this.helloWaiter && this.pending.size > 0 && coming > this.largestTaken()) {
      this.fail('remote command failed', oversizeDetail(this.largestTaken(), coming));
    }
  }

  private largestTaken(): number {
    let largest = 0;
    for (const pending of this.pending.values()) largest = Math.max(largest, pending.maxBytes);
    return largest;
  }

  private onFrame(frame: unknown, bytes: number): void {
    if (this.helloWaiter) {
      const hello = HelloSchema.safeParse(frame);
      if (!hello.success) {
        this.fail('remote command failed', 'the first frame is not a hello');
        return;
      }
      this.version = hello.data.version;
      const waiter = this.helloWaiter;
      this.helloWaiter = undefined;
      waiter.resolve();
      return;
    }
    if ((frame as { t?: unknown } | null)?.t === 'beat') return; // lastHeardAt is all it is for.
    const reply = ReplySchema.safeParse(frame);
    if (reply.success) {
      const pending = this.pending.get(reply.data.id);
      if (!pending) return; // Its caller gave up (deadline, abort) already.
      if (bytes > pending.maxBytes) {
        pending.reject(
          new UnreachableError(this.host, 'remote command failed', oversizeDetail(pending.maxBytes, bytes)),
        );
        return;
      }
      const durationMs = Math.round(performance.now() - pending.started);
      pending.resolve(
        reply.data.ok
          ? { ok: true, value: reply.data.value, exitCode: reply.data.code, durationMs }
          : { ok: false, error: debugText(reply.data.error), exitCode: reply.data.code, durationMs },
      );
      return;
    }
    const fatal = FatalSchema.safeParse(frame);
    this.fail(
      'remote command failed',
      fatal.success ? fatal.data.error : 'a frame is neither a reply nor fatal',
    );
  }

  private fail(category: UnreachableError['category'], why: string): void {
    if (this.closedWith) return;
    const detail = [why, this.stderr.trim()].filter(Boolean).join(': ');
    const error = new UnreachableError(this.host, category, detail);
    this.closedWith = error;
    this.helloWaiter?.reject(error);
    this.helloWaiter = undefined;
    for (const pending of [...this.pending.values()]) pending.reject(error);
    this.pending.clear();
    this.streams.destroy();
    for (const listener of this.closeListeners) listener(error);
    this.closeListeners = [];
  }
}
