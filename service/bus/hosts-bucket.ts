// The hosts bucket (`dogsled_hosts`, a JetStream KV bucket with history 1): each service puts its
// `host snapshot` document under its host id every tick and keeps one watch on the whole bucket.
// nats-server 2.9 has no per-key TTL, so a key is never expired by the server: how old a key is,
// is judged by its revision's time, moved onto this host's clock (core/fleet/bus-rules.ts).

import { type KV, Kvm, type KvWatchEntry } from '@nats-io/kv';
import { BUS_DOCUMENT_MAX_BYTES, HOSTS_BUCKET } from '../core/fleet/bus-rules.js';
import type { NatsConnection } from './connect.js';

export interface HostKey {
  key: string;
  /** null: the key was deleted or purged. */
  value: Uint8Array | null;
  /** The revision's time on the server's clock. */
  serverMs: number;
}

export class HostsBucket {
  /** Server clock minus this host's, measured on this host's own key; 0 until measured. */
  offsetMs = 0;

  private constructor(private readonly kv: KV) {}

  /**
   * Creates the bucket, or binds to it when this host's user may not create streams (a locked-down
   * bus whose operator made it once). `open` alone checks nothing: a put to a bucket nobody made
   * finds no responders.
   */
  static async open(nc: NatsConnection): Promise<HostsBucket> {
    const kvm = new Kvm(nc);
    // The server refuses a value over the limit: nats-server 2.9 stores a 50 MB value it then
    // cannot deliver, and the watch of every host stalls behind it.
    const kv = await kvm
      .create(HOSTS_BUCKET, { history: 1, maxValueSize: BUS_DOCUMENT_MAX_BYTES })
      .catch(() => kvm.open(HOSTS_BUCKET));
    return new HostsBucket(kv);
  }

  /** Puts this host's document; `measure` also reads it back to learn the server's clock. */
  async put(id: string, document: Uint8Array, now: () => number, measure: boolean): Promise<void> {
    const before = now();
    await this.kv.put(id, document);
    if (!measure) return;
    const entry = await this.kv.get(id);
    const after = now();
    if (entry) this.offsetMs = entry.created.getTime() - Math.round((before + after) / 2);
  }

  /**
   * Calls `onKey` for every key's current value, then for every change, until `signal` aborts or
   * the watch ends (the connection closed); `onCurrent` once the current values are through.
   */
  async watch(
    signal: AbortSignal,
    onKey: (key: HostKey) => Promise<void>,
    onCurrent: () => void,
  ): Promise<void> {
    const iterator = await this.kv.watch({ key: '>' });
    const stop = (): void => iterator.stop();
    signal.addEventListener('abort', stop, { once: true });
    let current = false;
    try {
      for await (const entry of iterator as AsyncIterable<KvWatchEntry>) {
        await onKey({
          key: entry.key,
          value: entry.operation === 'PUT' ? entry.value : null,
          serverMs: entry.created.getTime(),
        });
        if (!current && (entry.delta ?? 0) === 0) {
          current = true;
          onCurrent();
        }
      }
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }
}
