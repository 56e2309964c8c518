// The owner's side of children on peers (spec, "Inbox": every message to an agent goes through the
// inbox on its host): after each peer read, the service claims what waits for this host in each
// reachable peer's outbox (`host outbox claim`, through the pooled connection), writes messages
// into the owner panes' inboxes here, applies closes and branch facts to the owner's items, then
// acks. A crash between write and ack loses nothing (the lease ends and the records come again) and
// delivers nothing twice (each inbox record is posted once by its ref).

import { DogsledError, messageOf } from '../../core/common/errors.js';
import { testKnob } from '../../core/common/test-knobs.js';
import { senderFromPeer } from '../../core/inbox/inbox.js';
import type { InboxRecord } from '../../core/inbox/inbox-types.js';
import { awaitsPeer, OUTBOX_LEASE_MS, ownerItemsAfter } from '../../core/inbox/outbox-rule.js';
import type { OutboxRecord } from '../../core/inbox/outbox-types.js';
import type { PeerHost } from '../../hosts/fleet.js';
import { LOCAL_HOST } from '../../hosts/local-facts.js';
import { peerCall } from '../../hosts/peer-verb.js';
import { awaitedPeers } from '../../inbox/outbox.js';
import { postRecord } from '../../inbox/post.js';
import { openHerdr, paneWhereabouts } from '../../inbox/whereabouts.js';
import type { HostIO } from '../../state/io.js';
import { hostIdentity } from '../../state/records/identity.js';
import { readItems, updateItems } from '../../state/records/queue-items.js';
import { OutboxRecordSchema } from '../../state/schemas/outbox-schemas.js';
import type { TerminalPort } from '../../terminal/port.js';
import type { Transport } from '../../transport/types.js';
import type { WorkerIO } from '../worker-io.js';

/**
 * The peers whose outbox this host needs: those its open (or still landing) children are on, and
 * those a sender here messaged lately (the child there tells it `<name> finished`).
 */
export async function peersAwaited(io: WorkerIO): Promise<Set<string>> {
  const items = (await readItems(io)).items;
  const children = items.filter((item) => item.kind === 'agent' && awaitsPeer(item)).map((item) => item.host);
  const sent = await awaitedPeers(io).catch(() => [] as string[]);
  return new Set([...children, ...sent]);
}

export class OutboxPull {
  private readonly warned = new Set<string>();

  constructor(
    private readonly io: WorkerIO,
    private readonly transport: Transport,
  ) {}

  /** Takes what waits for this host on each of `peers` (reachable ones); one peer's failure stops only it. */
  async pass(peers: readonly PeerHost[]): Promise<number> {
    const awaited = await peersAwaited(this.io);
    let taken = 0;
    const terminal = herdrOnce(this.io);
    for (const peer of peers.filter((p) => awaited.has(p.id))) {
      try {
        taken += await this.pull(peer, terminal);
      } catch (error) {
        // Stopped mid-call: what was taken and not acked comes again once its lease ends.
        if (this.io.signal?.aborted) return taken;
        this.warnOnce(`dogsled serve: outbox of ${peer.label}: ${messageOf(error)}`);
      }
    }
    return taken;
  }

  private async pull(peer: PeerHost, terminal: () => Promise<TerminalPort | undefined>): Promise<number> {
    const io = this.io;
    const me = await hostIdentity(io);
    const value = (await peerCall(io, peer, ['outbox', 'claim', me, String(leaseMs(io))], {
      transport: this.transport,
      ...(io.signal ? { signal: io.signal } : {}),
    })) as { records?: unknown };
    const records: OutboxRecord[] = [];
    for (const raw of Array.isArray(value?.records) ? value.records : []) {
      const parsed = OutboxRecordSchema.safeParse(raw);
      if (parsed.success && parsed.data.owner_host === me) records.push(parsed.data);
    }
    if (records.length === 0) return 0;
    const done = await applyRecords(io, peer.id, records, terminal);
    // A crash for a test comes after a write: records left for later (no Herdr here yet) are none.
    if (done.length > 0) crashForTest(io);
    if (done.length > 0)
      await peerCall(io, peer, ['outbox', 'ack', me, ...done.map((r) => r.id)], {
        transport: this.transport,
        ...(io.signal ? { signal: io.signal } : {}),
      });
    return done.length;
  }

  private warnOnce(line: string): void {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.io.warn(line);
  }
}

/**
 * Writes what records from host `peer` carry for this host: each message into its owner pane's
 * inbox here (once by its ref), then every close and branch fact onto the owner's items. Returns the
 * records done; a message whose owner pane cannot be looked for (no Herdr here) waits for later.
 */
export async function applyRecords(
  io: HostIO,
  peer: string,
  records: readonly OutboxRecord[],
  terminal: () => Promise<TerminalPort | undefined>,
): Promise<OutboxRecord[]> {
  const done: OutboxRecord[] = [];
  for (const record of records) {
    if (!record.message) {
      done.push(record);
      continue;
    }
    const port = await terminal();
    if (port === undefined) continue;
    const owner = await paneWhereabouts(port, record.message.owner_pane);
    // An owner Herdr no longer shows has no inbox to read it (as for a child on this host).
    if (owner !== undefined) await deliver(io, owner, peer, record.message.record);
    done.push(record);
  }
  await updateItems(io, (file) => {
    const { next, changed } = ownerItemsAfter(file.items, peer, done, io.now());
    return changed ? { result: undefined, next: { ...file, items: next } } : { result: undefined };
  });
  return done;
}

/** This host's Herdr, opened once when first needed (undefined without one). */
export function herdrOnce(io: Pick<HostIO, 'env' | 'home'>): () => Promise<TerminalPort | undefined> {
  let port: Promise<TerminalPort | undefined> | undefined;
  return () => {
    port ??= openHerdr({ env: io.env, home: io.home, commandName: 'serve' }).catch(() => undefined);
    return port;
  };
}

async function deliver(
  io: HostIO,
  owner: { terminal: string; pane: string },
  peer: string,
  record: InboxRecord,
): Promise<void> {
  // The child's host, as this host knows it: a peer's own records call it `local`.
  // Every sender field came from the peer: cleaned and bounded like a peer's `host send`.
  const sender = { ...senderFromPeer(record.sender, LOCAL_HOST.id), host: peer };
  await postRecord(io, owner.terminal, owner.pane, { ...record, sender });
}

/** The lease asked of a peer; tests shorten it (OUTBOX_LEASE_MS) to see a lost claimer's records again. */
export function leaseMs(io: Pick<HostIO, 'env'>): number {
  return testKnob(io.env, 'OUTBOX_LEASE_MS') ?? OUTBOX_LEASE_MS;
}

/**
 * The OUTBOX_CRASH knob at `after-write`: the service dies right after writing what it took and
 * before the ack, as a crash there would, so a test can show nothing is lost or doubled.
 */
export function crashForTest(io: Pick<HostIO, 'env'>): void {
  if (testKnob(io.env, 'OUTBOX_CRASH') === 'after-write') {
    process.kill(process.pid, 'SIGKILL');
    throw new DogsledError('outbox: crashed for a test');
  }
}
