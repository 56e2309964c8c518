// The service's side of the fleet bus (`[fleet] bus`): it connects (reconnecting by itself for as
// long as the service runs), puts this host's `host snapshot` document under its id in the hosts
// bucket every tick, and keeps one watch on the bucket that writes each other host's peer cache
// entry (peers/ID.json, `via: bus`), so every command reads local files as it does for SSH peers.
// While the bus cannot be reached, every bus peer says `bus down` with its last snapshot, and the
// lane's one-line reason is in host.json's errors (status shows it); local work never waits on it.
// A document that is too big, not JSON or not a snapshot is ignored with one warning per key and
// problem, never shown. Loaded only when `[fleet] bus` is set (serve.ts imports it on demand).

import {
  type BusSettings,
  busFailure,
  busHostId,
  busName,
  type NatsConnection,
  openBus,
} from '../../bus/connect.js';
import { type HostKey, HostsBucket } from '../../bus/hosts-bucket.js';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { changedAtMs, foreignHostKey } from '../../core/fleet/bus-rules.js';
import { snapshotVerb } from '../../host-verbs/snapshot-verb.js';
import { forgetBusPeer, markBusDown, readBusDocument, writeBusPeer } from '../../hosts/bus-peers.js';
import type { HostIO } from '../../state/io.js';

/** A first connection that failed is tried again this often (a live one reconnects by itself). */
const RETRY_MS = 2_000;
/** The server's clock is measured again every this many puts. */
const MEASURE_EVERY = 30;

export interface BusWorkerIO extends HostIO {
  configPath: string;
  intervalMs: number;
}

export interface BusWorker {
  stop(): Promise<void>;
}

/** `report` receives the lane's problem for host.json's errors, or undefined once it is gone. */
export function startBusWorker(
  io: BusWorkerIO,
  signal: AbortSignal,
  report: (problem: string | undefined) => void,
): BusWorker {
  const stopper = new AbortController();
  const stop = AbortSignal.any([signal, stopper.signal]);
  const done = new BusLane(io, stop, report).run().catch((error: unknown) => {
    if (!stop.aborted) io.warn(`dogsled: warning: bus: ${messageOf(error)}`);
  });
  return {
    async stop() {
      stopper.abort();
      await done;
    },
  };
}

class BusLane {
  private readonly settings: BusSettings;
  private readonly id: string;
  private readonly warned = new Map<string, string>();
  private said: string | undefined;

  constructor(
    private readonly io: BusWorkerIO,
    private readonly signal: AbortSignal,
    private readonly report: (problem: string | undefined) => void,
  ) {
    this.settings = { fleet: io.config.fleet, configPath: io.configPath };
    this.id = busHostId(io.config.fleet);
  }

  /** Says a problem once until it changes; every bus peer is then `bus down`. */
  private async down(problem: string): Promise<void> {
    if (this.said !== problem) {
      this.said = problem;
      this.io.warn(`dogsled: warning: ${problem}`);
      this.report(problem);
    }
    await markBusDown(this.io).catch(() => {});
  }

  private up(): void {
    if (this.said === undefined) return;
    this.said = undefined;
    this.report(undefined);
  }

  async run(): Promise<void> {
    let nc: NatsConnection | undefined;
    while (!this.signal.aborted && nc === undefined) {
      try {
        nc = await openBus(this.settings, `dogsled ${this.id}`);
      } catch (error) {
        await this.down(
          error instanceof DogsledError
            ? error.message
            : `bus ${busName(this.settings.fleet)}: ${busFailure(error)}`,
        );
        await pause(RETRY_MS, this.signal);
      }
    }
    if (nc === undefined) return;
    const closeOnStop = (): void => void nc.close().catch(() => {});
    this.signal.addEventListener('abort', closeOnStop, { once: true });
    try {
      await this.connected(nc);
    } finally {
      this.signal.removeEventListener('abort', closeOnStop);
      await nc.close().catch(() => {});
    }
  }

  /**
   * Each tick puts this host's document; a tick without a live watch (the first, or one after the
   * connection dropped or the watch failed) opens the bucket and starts it first. A server that is
   * back but whose JetStream is still recovering fails that tick, and the next one tries again.
   */
  private async connected(nc: NatsConnection): Promise<void> {
    let watch: AbortController | undefined;
    let bucket: HostsBucket | undefined;
    const drop = (): void => {
      watch?.abort();
      watch = undefined;
    };
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type !== 'disconnect') continue;
        drop();
        await this.down(`bus ${busName(this.settings.fleet)}: connection lost`);
      }
    })();
    let puts = 0;
    let delay = 0;
    while (await pause(delay, this.signal)) {
      delay = this.io.intervalMs;
      if (nc.isClosed()) break;
      try {
        if (watch === undefined) {
          bucket = await HostsBucket.open(nc);
          await this.publish(bucket, true);
          const current = new AbortController();
          watch = current;
          const open = bucket;
          void open
            .watch(
              current.signal,
              (key) => this.take(open, key),
              () => {},
            )
            .catch(async (error: unknown) => {
              if (current.signal.aborted || this.signal.aborted) return;
              if (watch === current) drop();
              await this.down(this.failure(error));
            });
          this.up();
        } else if (bucket !== undefined) {
          puts += 1;
          await this.publish(bucket, puts % MEASURE_EVERY === 0);
          this.up();
        }
      } catch (error) {
        if (this.signal.aborted) break;
        drop();
        await this.down(this.failure(error));
        delay = Math.min(RETRY_MS, this.io.intervalMs);
      }
    }
    drop();
  }

  private failure(error: unknown): string {
    return `bus ${busName(this.settings.fleet)}: ${busFailure(error)}`;
  }

  private async publish(bucket: HostsBucket, measure: boolean): Promise<void> {
    const { value } = await snapshotVerb([], { ...this.io, input: Buffer.alloc(0) });
    await bucket.put(this.id, new TextEncoder().encode(JSON.stringify(value)), this.io.now, measure);
  }

  private warnOnce(key: string, problem: string): void {
    if (this.warned.get(key) === problem) return;
    this.warned.set(key, problem);
    this.io.warn(`dogsled: warning: bus host ${key}: ${problem}, ignored`);
  }

  private async take(bucket: HostsBucket, entry: HostKey): Promise<void> {
    const why = foreignHostKey(entry.key, this.id);
    if (why === 'own') return;
    // A key that is no host id is not shown, even in the warning.
    if (why !== undefined) return this.warnOnce('(a key that is not a host id)', why);
    try {
      if (entry.value === null) return await forgetBusPeer(this.io, entry.key);
      const document = readBusDocument(entry.value);
      if (!document.ok) return this.warnOnce(entry.key, document.problem);
      this.warned.delete(entry.key);
      const now = this.io.now();
      await writeBusPeer(
        this.io,
        entry.key,
        document.reply,
        changedAtMs(entry.serverMs, bucket.offsetMs, now),
      );
    } catch (error) {
      if (!this.signal.aborted) this.io.warn(`dogsled: warning: bus host ${entry.key}: ${messageOf(error)}`);
    }
  }
}

/** Resolves true after `ms`, or false at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
