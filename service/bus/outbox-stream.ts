// The JetStream stream a child's records for an owner on another host travel in (`dogsled_outbox`,
// subjects `dogsled.outbox.<owner>.<sender>`, a work queue kept on disk): the child's host posts each
// record under its id as the message id, so a record posted twice within the duplicate window (its
// host died between the post and its own ack) is stored once; the owner's service takes its records
// through its own durable consumer (`owner_<id>`) and acknowledges each only once it is written, so a
// server restart, a service killed between write and ack, or a redelivery loses none (what is not
// acknowledged comes again) and the owner's write (once per ref) makes none appear twice.

import {
  AckPolicy,
  type Consumer,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import {
  OUTBOX_DUPLICATE_WINDOW_MS,
  OUTBOX_STREAM,
  OUTBOX_STREAM_MAX_AGE_MS,
  OUTBOX_SUBJECTS,
  outboxConsumer,
  outboxSender,
  outboxSubject,
} from '../core/fleet/bus-rules.js';
import type { NatsConnection } from './connect.js';

const NS_PER_MS = 1_000_000;
/** One take waits this long for records before it returns (and the caller asks again). */
const TAKE_WAIT_MS = 5_000;
/** Records one take hands over at most. */
const TAKE_MAX = 32;

/** A record as the stream delivered it: its sender by the subject, and what to say once handled. */
export interface StreamRecord {
  from: string;
  body: Uint8Array;
  /** Times it was delivered (1 the first time). */
  deliveries: number;
}

/** What became of a delivered record: written (acknowledged), or to come again after `laterMs`. */
export type Handled = { done: true } | { done: false; laterMs: number };

export class OutboxStream {
  private consumer: Consumer | undefined;

  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly id: string,
    private readonly ackWaitMs: number,
  ) {}

  /**
   * Makes the stream, or binds to it when this host's user may not make streams (its operator made
   * it once); the owner's consumer is made when it first takes.
   */
  static async open(nc: NatsConnection, id: string, ackWaitMs: number): Promise<OutboxStream> {
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    await jsm.streams
      .add({
        name: OUTBOX_STREAM,
        subjects: [OUTBOX_SUBJECTS],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        max_age: OUTBOX_STREAM_MAX_AGE_MS * NS_PER_MS,
        duplicate_window: OUTBOX_DUPLICATE_WINDOW_MS * NS_PER_MS,
      })
      .catch(() => jsm.streams.info(OUTBOX_STREAM));
    return new OutboxStream(jetstream(nc, { checkAPI: false }), jsm, id, ackWaitMs);
  }

  /**
   * Posts one record for the owner on host `owner`, its id the message id; resolves once the server
   * stored it (or found it stored already), so the caller may then forget it.
   */
  async post(owner: string, recordId: string, body: Uint8Array): Promise<void> {
    await this.js.publish(outboxSubject(owner, this.id), body, { msgID: recordId });
  }

  /**
   * Takes what waits for this host, handing each record to `handle` in order and acknowledging it
   * (and waiting for the server to confirm) only once `handle` says it is written. Returns how many
   * were handed over; ends early when `signal` aborts.
   */
  async take(handle: (record: StreamRecord) => Promise<Handled>, signal: AbortSignal): Promise<number> {
    const consumer = await this.ownConsumer();
    const messages = await consumer
      .fetch({ max_messages: TAKE_MAX, expires: TAKE_WAIT_MS })
      .catch((error) => {
        // Made again at the next take: an operator may have removed it.
        this.consumer = undefined;
        throw error;
      });
    const stop = (): void => void messages.stop();
    signal.addEventListener('abort', stop, { once: true });
    let taken = 0;
    try {
      for await (const msg of messages) {
        const from = outboxSender(msg.subject, this.id);
        // Not a subject of this owner's records: nothing here can write it, and it must not block.
        if (from === undefined) {
          msg.term();
          continue;
        }
        taken += 1;
        const handled = await handle({ from, body: msg.data, deliveries: msg.info.deliveryCount });
        if (handled.done) await msg.ackAck();
        else msg.nak(handled.laterMs);
        if (signal.aborted) break;
      }
    } finally {
      signal.removeEventListener('abort', stop);
    }
    return taken;
  }

  private async ownConsumer(): Promise<Consumer> {
    if (this.consumer) return this.consumer;
    const { name, filter } = outboxConsumer(this.id);
    await this.jsm.consumers
      .add(OUTBOX_STREAM, {
        durable_name: name,
        filter_subject: filter,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: this.ackWaitMs * NS_PER_MS,
        max_deliver: -1,
      })
      // Made before with other settings: the one there takes.
      .catch(() => this.jsm.consumers.info(OUTBOX_STREAM, name));
    this.consumer = await this.js.consumers.get(OUTBOX_STREAM, name);
    return this.consumer;
  }
}
