// The service's side of the fleet bus (`[fleet] bus`): it connects (reconnecting by itself for as
// long as the service runs), puts this host's document (its `host snapshot`, its identity as an
// owner, and whether it answers its verbs here) under its id in the hosts bucket every tick, and
// keeps one watch on the bucket that writes each other host's peer cache entry (peers/ID.json,
// `via: bus`), so every command reads local files as it does for SSH peers. It answers the host
// verbs on `dogsled.rpc.<id>` (host-verbs/rpc-server.ts runs them, as `host rpc` does over SSH),
// lends its connection to the service's own calls to bus peers (`transport`), and carries records
// across hosts through the outbox stream (bus-outbox.ts).
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
import { OutboxStream } from '../../bus/outbox-stream.js';
import { BusTransport } from '../../bus/rpc-client.js';
import { BusResponder } from '../../bus/rpc-serve.js';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { changedAtMs, foreignHostKey, rpcSubject } from '../../core/fleet/bus-rules.js';
import { answerBusRequest } from '../../host-verbs/rpc-server.js';
import { snapshotVerb } from '../../host-verbs/snapshot-verb.js';
import { forgetBusPeer, markBusDown, readBusDocument, writeBusPeer } from '../../hosts/bus-peers.js';
import type { HostIO } from '../../state/io.js';
import { hostIdentity } from '../../state/records/identity.js';
import { UnreachableError } from '../../transport/types.js';
import { OwnerTake, postToOwners } from './bus-outbox.js';
import { leaseMs } from './outbox-pull.js';

/** A first connection that failed is tried again this often (a live one reconnects by itself). */
const RETRY_MS = 2_000;
/** The server's clock is measured again every this many puts. */
const MEASURE_EVERY = 30;

export interface BusWorkerIO extends HostIO {
  configPath: string;
  intervalMs: number;
}

export interface BusWorker {
  /** The service's calls to bus peers go over the lane's connection; `bus down` while it has none. */
  transport: BusTransport;
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
  const lane = new BusLane(io, stop, report);
  const done = lane.run().catch((error: unknown) => {
    if (!stop.aborted) io.warn(`dogsled: warning: bus: ${messageOf(error)}`);
  });
  return {
    transport: lane.transport,
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
  /** Lines said once for the run (a refused subject, a stream that fails). */
  private readonly saidLines = new Set<string>();
  private said: string | undefined;
  /** Set while the connection is up; the service's calls to bus peers ride it. */
  private live: NatsConnection | undefined;
  private responder: BusResponder | undefined;
  private outbox: OutboxStream | undefined;
  private identity: string | undefined;
  readonly transport: BusTransport;

  constructor(
    private readonly io: BusWorkerIO,
    private readonly signal: AbortSignal,
    private readonly report: (problem: string | undefined) => void,
  ) {
    this.settings = { fleet: io.config.fleet, configPath: io.configPath };
    this.id = busHostId(io.config.fleet);
    this.transport = new BusTransport(async () => {
      const nc = this.live;
      if (nc === undefined || nc.isClosed()) {
        throw new UnreachableError('bus', 'bus down', this.said ?? 'the service is not on the bus');
      }
      return { nc, id: this.id };
    });
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
        nc = await openBus(this.settings, this.id, `dogsled ${this.id}`);
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
      this.live = undefined;
      this.responder?.stop();
      this.transport.lost('the service stopped');
      await nc.close().catch(() => {});
    }
  }

  /**
   * Each tick puts this host's document and posts what waits for owners on the bus; a tick without
   * a live watch (the first, or one after the connection dropped or the watch failed) opens the
   * bucket and starts it first. A server that is back but whose JetStream is still recovering
   * fails that tick, and the next one tries again.
   */
  private async connected(nc: NatsConnection): Promise<void> {
    let watch: AbortController | undefined;
    let bucket: HostsBucket | undefined;
    const drop = (): void => {
      watch?.abort();
      watch = undefined;
    };
    this.live = nc;
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'reconnect') this.live = nc;
        if (status.type !== 'disconnect') continue;
        this.live = undefined;
        this.transport.lost('connection lost');
        drop();
        await this.down(`bus ${busName(this.settings.fleet)}: connection lost`);
      }
    })();
    void this.takeForOwner();
    let puts = 0;
    let delay = 0;
    while (await pause(delay, this.signal)) {
      delay = this.io.intervalMs;
      if (nc.isClosed()) break;
      try {
        if (watch === undefined) {
          await this.answer(nc);
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
        continue;
      }
      await this.postRecords(nc);
    }
    drop();
  }

  /**
   * Answers this host's verbs on its subject, once per connection (the client subscribes again by
   * itself after a reconnect). A server that refuses the subscription (its user may not answer
   * that subject) is said, and the document says this host answers no verbs.
   */
  private async answer(nc: NatsConnection): Promise<void> {
    if (this.responder !== undefined && !this.responder.closed) return;
    this.responder?.stop();
    this.responder = await BusResponder.start(nc, this.id, (request) =>
      answerBusRequest(request, async () => this.io),
    );
    if (this.responder.closed) {
      this.warnLine(
        `dogsled: warning: bus ${busName(this.settings.fleet)}: may not answer ${rpcSubject(this.id)}: this host takes no work from the bus`,
      );
    }
  }

  private warnLine(line: string): void {
    if (this.saidLines.has(line)) return;
    this.saidLines.add(line);
    this.io.warn(line);
  }

  private failure(error: unknown): string {
    if (error instanceof DogsledError) return error.message;
    return `bus ${busName(this.settings.fleet)}: ${busFailure(error)}`;
  }

  private async publish(bucket: HostsBucket, measure: boolean): Promise<void> {
    const { value } = await snapshotVerb([], { ...this.io, input: Buffer.alloc(0) });
    this.identity ??= await hostIdentity(this.io);
    const rpc = this.responder !== undefined && !this.responder.closed;
    const document = { ...(value as object), bus: { identity: this.identity, rpc } };
    await bucket.put(this.id, new TextEncoder().encode(JSON.stringify(document)), this.io.now, measure);
  }

  /** The stream, opened on first need; records posted each tick (the stream keeps them for owners). */
  private async stream(nc: NatsConnection): Promise<OutboxStream> {
    this.outbox ??= await OutboxStream.open(nc, this.id, leaseMs(this.io));
    return this.outbox;
  }

  /** A failure here is the stream's alone: the hosts bucket and the verbs go on. */
  private async postRecords(nc: NatsConnection): Promise<void> {
    try {
      await postToOwners(this.io, await this.stream(nc));
    } catch (error) {
      if (!this.signal.aborted) this.warnLine(`dogsled: warning: ${this.failure(error)} (the outbox stream)`);
    }
  }

  /**
   * This host as an owner: takes the records its children elsewhere posted, one wait of a few
   * seconds after another, for as long as the service runs; a failed take (the server away) is
   * tried again after a pause, its records still in the stream.
   */
  private async takeForOwner(): Promise<void> {
    const owner = new OwnerTake(this.io);
    while (!this.signal.aborted) {
      const nc = this.live;
      try {
        if (nc === undefined) throw new Error('not connected');
        await owner.pass(await this.stream(nc), this.signal);
      } catch {
        if (!(await pause(RETRY_MS, this.signal))) return;
      }
    }
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
