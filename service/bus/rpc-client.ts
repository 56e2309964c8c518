// The host verbs of a peer met on the fleet bus, as a Transport: each call is one request message to
// `dogsled.rpc.<id>` carrying the same msgpack request frame as `host rpc` over SSH, and its reply
// comes back on this host's own inbox subject as one or more messages that join into one reply frame
// (rpc-serve.ts splits what is over the server's message limit). Nobody subscribed to the subject is
// `unreachable: no responder`; silence until the deadline is a `timeout`; the connection lost under a
// call is `connection lost` (whether the verb ran is unknown, as over SSH). The service lends its own
// connection; a command opens one for its calls and closes it when they are done.

import { createInbox, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { DogsledError } from '../core/common/errors.js';
import { inboxPrefix, rpcSubject } from '../core/fleet/bus-rules.js';
import type { UnreachableCategory } from '../core/fleet/unreachable.js';
import { encodeFrame, FrameDecoder, MAX_FRAME_BYTES } from '../transport/frames.js';
import {
  abortReason,
  deadlineOf,
  debugText,
  type ExecOptions,
  oversizeDetail,
  type PeerTarget,
  type Transport,
  UnreachableError,
  type VerbReply,
} from '../transport/types.js';
import { FatalSchema, type Reply, ReplySchema } from '../transport/wire.js';
import { type BusSettings, busHostId, openBus } from './connect.js';

/** What a call runs on: a live connection and this host's id on the bus (its reply subjects). */
export interface BusLink {
  nc: NatsConnection;
  id: string;
}

/**
 * `link` gives the connection a call goes over, or throws (an UnreachableError `bus down` while the
 * service is off the bus; a DogsledError naming the bus when a command cannot connect).
 */
export class BusTransport implements Transport {
  readonly kind = 'bus';
  /** Each call under way, told when the connection is lost. */
  private readonly calls = new Set<(why: string) => void>();

  constructor(
    private readonly link: (signal: AbortSignal | undefined) => Promise<BusLink>,
    private readonly onClose: () => Promise<void> = async () => {},
  ) {}

  async exec(target: PeerTarget, argv: readonly string[], options: ExecOptions = {}): Promise<VerbReply> {
    const [verb, ...args] = argv;
    const host = target.bus;
    if (verb === undefined) throw new DogsledError('transport: no verb to run');
    if (host === undefined) throw new DogsledError(`transport: ${target.host} is not a host on the bus`);
    const started = performance.now();
    const timeoutMs = deadlineOf(options);
    const { nc, id } = await this.link(options.signal).catch((error: unknown) => {
      throw error instanceof UnreachableError ? rehost(error, host) : error;
    });
    const input = typeof options.input === 'string' ? Buffer.from(options.input) : options.input;
    const request = encodeFrame({ t: 'req', id: 0, verb, args, ...(input ? { input } : {}) });
    const limit = nc.info?.max_payload ?? 1024 * 1024;
    if (request.byteLength > limit) {
      throw new DogsledError(
        `${host}: a ${verb} request of ${request.byteLength} bytes is over the bus's ${limit}-byte message limit`,
      );
    }
    const maxBytes = Math.min(options.maxReplyBytes ?? MAX_FRAME_BYTES, MAX_FRAME_BYTES);
    const remaining = Math.max(1, timeoutMs - (performance.now() - started));
    return this.call(nc, createInbox(inboxPrefix(id)), host, verb, request, {
      timeoutMs: remaining,
      maxBytes,
      started,
      signal: options.signal,
    });
  }

  /** The connection was lost: every call on it fails as `connection lost`. */
  lost(why: string): void {
    for (const onLost of [...this.calls]) onLost(why);
  }

  async close(): Promise<void> {
    this.lost('closed by the caller');
    await this.onClose();
  }

  private call(
    nc: NatsConnection,
    inbox: string,
    host: string,
    verb: string,
    request: Buffer,
    options: { timeoutMs: number; maxBytes: number; started: number; signal: AbortSignal | undefined },
  ): Promise<VerbReply> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<VerbReply>((resolve, reject) => {
      const decoder = new FrameDecoder();
      let received = 0;
      let settled = false;
      const end = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        subscription.unsubscribe();
        this.calls.delete(onLost);
        outcome();
      };
      const fail = (error: unknown): void => end(() => reject(error));
      const failed = (category: UnreachableCategory, detail: string): void =>
        fail(new UnreachableError(host, category, detail));
      const take = (msg: Msg): void => {
        received += msg.data.byteLength;
        const outcome = this.heard(msg, decoder, received, options.maxBytes);
        if (outcome === undefined) return;
        if ('category' in outcome) {
          failed(outcome.category, outcome.detail);
          return;
        }
        const durationMs = Math.round(performance.now() - options.started);
        const data = outcome.reply;
        end(() =>
          resolve(
            data.ok
              ? { ok: true, value: data.value, exitCode: data.code, durationMs }
              : { ok: false, error: debugText(data.error), exitCode: data.code, durationMs },
          ),
        );
      };
      const subscription = nc.subscribe(inbox, {
        callback: (error, msg) =>
          error === null ? take(msg) : failed('remote command failed', error.message),
      });
      const timer = setTimeout(
        () => failed('timeout', `no reply to ${verb} within ${options.timeoutMs} ms`),
        options.timeoutMs,
      );
      const onAbort = (): void => fail(abortReason(signal as AbortSignal));
      const onLost = (why: string): void => failed('connection lost', why);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.calls.add(onLost);
      try {
        // On one connection the subscription reaches the server before the request does.
        nc.publish(rpcSubject(host), request, { reply: inbox });
      } catch (error) {
        failed('connection lost', (error as Error).message);
      }
    });
  }

  /**
   * What one message of a reply says: the reply once its frame is whole, a failure (nobody
   * subscribed, over the bound, not frames, a fatal frame), or nothing yet (a part, a beat).
   */
  private heard(msg: Msg, decoder: FrameDecoder, received: number, maxBytes: number): Heard {
    if (msg.data.byteLength === 0 && msg.headers?.code === 503)
      return { category: 'no responder', detail: 'nobody subscribes to its request subject' };
    // A reply over the bound (a frame header aside) is refused before the rest of it is read.
    if (received > maxBytes + 16) {
      return { category: 'remote command failed', detail: oversizeDetail(maxBytes, received) };
    }
    let frames: unknown[];
    try {
      frames = decoder.push(Buffer.from(msg.data));
    } catch (error) {
      return { category: 'remote command failed', detail: (error as Error).message };
    }
    for (const frame of frames) {
      if ((frame as { t?: unknown } | null)?.t === 'beat') continue;
      const reply = ReplySchema.safeParse(frame);
      if (reply.success) return { reply: reply.data };
      const fatal = FatalSchema.safeParse(frame);
      return {
        category: 'remote command failed',
        detail: fatal.success ? fatal.data.error : 'a frame is neither a reply nor fatal',
      };
    }
    return undefined;
  }
}

type Heard = { reply: Reply } | { category: UnreachableCategory; detail: string } | undefined;

function rehost(error: UnreachableError, host: string): UnreachableError {
  return new UnreachableError(host, error.category, error.detail);
}

/**
 * A command's own link to the bus: one connection, opened at its first call and closed with the
 * transport, never reconnecting (a command's call fails rather than waits for a server).
 */
export function commandBusTransport(settings: BusSettings): BusTransport {
  let opened: Promise<BusLink> | undefined;
  let transport: BusTransport | undefined;
  const open = async (): Promise<BusLink> => {
    const id = busHostId(settings.fleet);
    const nc = await openBus(settings, id, `dogsled ${id} (command)`, { reconnect: false });
    void nc.closed().then(() => transport?.lost('the connection closed'));
    return { nc, id };
  };
  transport = new BusTransport(
    async () => {
      opened ??= open();
      return opened;
    },
    async () => {
      const link = await opened?.catch(() => undefined);
      await link?.nc.close().catch(() => {});
    },
  );
  return transport;
}
