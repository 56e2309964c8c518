// This host's side of the host verbs on the fleet bus: the service subscribes to its own subject
// (`dogsled.rpc.<id>`) and answers each request message with the same msgpack frames as `host rpc`
// over SSH (service/host-verbs answers it; this file only carries bytes). A reply longer than the
// server's message limit (1 MiB by default; a `logs` chunk is more) goes as several messages on the
// requester's reply subject, in order, which the requester joins (rpc-client.ts). Verbs run a few
// at a time; a flood beyond the waiting room is refused at once rather than held in memory.

import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { messageOf } from '../core/common/errors.js';
import { rpcSubject } from '../core/fleet/bus-rules.js';
import { encodeFrame } from '../transport/frames.js';

/** Verbs that run at once; the rest wait their turn. */
const RUNNING_MAX = 8;
/** Requests that may wait; one more is refused with a fatal frame. */
const WAITING_MAX = 256;

export type AnswerRequest = (request: Uint8Array) => Promise<Uint8Array>;

export class BusResponder {
  private running = 0;
  private readonly waiting: Msg[] = [];
  private subscription: Subscription | undefined;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly answer: AnswerRequest,
  ) {}

  /** Subscribes now; `flush` resolves once the server has the subscription (a refused one throws). */
  static async start(nc: NatsConnection, id: string, answer: AnswerRequest): Promise<BusResponder> {
    const responder = new BusResponder(nc, answer);
    responder.subscription = nc.subscribe(rpcSubject(id), {
      callback: (error, msg) => {
        if (error === null) responder.take(msg);
      },
    });
    await nc.flush();
    return responder;
  }

  /** Whether the server ended the subscription (a permissions refusal, the connection closed). */
  get closed(): boolean {
    return this.subscription?.isClosed() ?? true;
  }

  /** Takes no more requests; those running end when they end (their replies may still go). */
  stop(): void {
    this.subscription?.unsubscribe();
    this.waiting.length = 0;
  }

  private take(msg: Msg): void {
    // A message nobody waits on the answer of is not a request.
    if (!msg.reply) return;
    if (this.running < RUNNING_MAX) {
      void this.run(msg);
    } else if (this.waiting.length < WAITING_MAX) {
      this.waiting.push(msg);
    } else {
      this.send(msg.reply, encodeFrame({ t: 'fatal', error: 'host rpc: busy, too many requests waiting' }));
    }
  }

  private async run(msg: Msg): Promise<void> {
    this.running += 1;
    try {
      const reply = await this.answer(msg.data).catch((error: unknown) =>
        encodeFrame({ t: 'fatal', error: `host rpc: ${messageOf(error)}` }),
      );
      if (msg.reply) this.send(msg.reply, reply);
    } finally {
      this.running -= 1;
      const next = this.waiting.shift();
      if (next !== undefined) void this.run(next);
    }
  }

  /** The reply in as many messages as the server's limit needs, in order. */
  private send(subject: string, reply: Uint8Array): void {
    const size = Math.max(1024, this.nc.info?.max_payload ?? 1024 * 1024);
    try {
      for (let at = 0; at < reply.byteLength; at += size) {
        this.nc.publish(subject, reply.subarray(at, at + size));
      }
    } catch {
      // The connection closed under the reply: the requester hears `connection lost` or its deadline.
    }
  }
}
