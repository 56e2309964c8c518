// Records across hosts on the fleet bus. A child's side: each tick the records in outbox.json for an
// owner met on the bus (its document names its identity) are claimed as an SSH owner would claim
// them, posted to the stream under their ids, and only then acknowledged here; a host killed between
// the post and that ack posts them again when their lease ends, and the stream keeps one (same id).
// An owner's side: its service takes the records its durable consumer holds, writes each into the
// owner pane's inbox and the owner's items exactly as the SSH outbox pull does (outbox-pull.ts),
// and acknowledges it after the write; a record that comes again is written once (by its ref).
// A record that is not JSON, not a record or not for this host is acknowledged and dropped with one
// warning, never shown and never left to block the ones behind it.

import type { OutboxStream, StreamRecord } from '../../bus/outbox-stream.js';
import { messageOf } from '../../core/common/errors.js';
import { testKnob } from '../../core/common/test-knobs.js';
import { busIdOfIdentity } from '../../core/fleet/bus-rules.js';
import { busPeers } from '../../hosts/bus-peers.js';
import { readPeerEntry } from '../../hosts/peer-cache.js';
import { ackOutbox, claimOutbox, readOutbox } from '../../inbox/outbox.js';
import type { HostIO } from '../../state/io.js';
import { hostIdentity } from '../../state/records/identity.js';
import { OutboxRecordSchema } from '../../state/schemas/outbox-schemas.js';
import { applyRecords, crashForTest, herdrOnce, leaseMs } from './outbox-pull.js';

/** A record whose owner pane cannot be looked for (no Herdr here) comes again after this. */
const NO_HERDR_LATER_MS = 5_000;
/** No honest record is near this (a reply is bounded far below it). */
const RECORD_MAX_BYTES = 1024 * 1024;

/** Each bus peer's id and the identity its document names. */
async function busIdentities(io: HostIO): Promise<Array<{ id: string; identity: string | null }>> {
  const peers = await busPeers(io);
  return Promise.all(
    peers.map(async (peer) => {
      const entry = await readPeerEntry(io, peer.id).catch(() => undefined);
      return { id: peer.id, identity: entry?.reply?.bus?.identity ?? null };
    }),
  );
}

/**
 * Posts what waits in outbox.json for owners met on the bus; returns how many records the stream
 * took. Records for an owner the bus does not name stay for that owner's SSH pull.
 */
export async function postToOwners(io: HostIO, stream: OutboxStream): Promise<number> {
  const waiting = await readOutbox(io);
  if (waiting.length === 0) return 0;
  const peers = await busIdentities(io);
  let posted = 0;
  for (const owner of new Set(waiting.map((record) => record.owner_host))) {
    const busId = busIdOfIdentity(owner, peers);
    if (busId === undefined) continue;
    const claimed = await claimOutbox(io, owner, leaseMs(io));
    const done: string[] = [];
    try {
      for (const record of claimed) {
        await stream.post(busId, record.id, new TextEncoder().encode(JSON.stringify(record)));
        done.push(record.id);
      }
    } finally {
      // What the stream took is the owner's now; the rest is offered again when its lease ends.
      if (done.length > 0) {
        if (testKnob(io.env, 'OUTBOX_CRASH') === 'after-post') process.kill(process.pid, 'SIGKILL');
        await ackOutbox(io, owner, done);
        posted += done.length;
      }
    }
  }
  return posted;
}

/** The owner's side: writes each record the stream delivers, then says it is done. */
export class OwnerTake {
  private readonly warned = new Set<string>();
  private readonly terminal;
  private me: string | undefined;

  constructor(private readonly io: HostIO) {
    this.terminal = herdrOnce(io);
  }

  /** One take from the stream (it waits a few seconds for records); how many were handed over. */
  pass(stream: OutboxStream, signal: AbortSignal): Promise<number> {
    return stream.take((record) => this.write(record), signal);
  }

  private async write(delivered: StreamRecord): Promise<{ done: true } | { done: false; laterMs: number }> {
    this.me ??= await hostIdentity(this.io);
    const record = this.parse(delivered);
    if (record === undefined) return { done: true };
    try {
      const done = await applyRecords(this.io, delivered.from, [record], this.terminal);
      if (done.length === 0) return { done: false, laterMs: NO_HERDR_LATER_MS };
    } catch (error) {
      this.warnOnce(`dogsled serve: a record from ${delivered.from} on the bus: ${messageOf(error)}`);
      return { done: false, laterMs: NO_HERDR_LATER_MS };
    }
    crashForTest(this.io);
    return { done: true };
  }

  private parse(delivered: StreamRecord) {
    const drop = (why: string) => {
      this.warnOnce(`dogsled: warning: bus host ${delivered.from}: ${why} in the outbox stream, dropped`);
      return undefined;
    };
    if (delivered.body.byteLength > RECORD_MAX_BYTES) return drop('a record over 1 MiB');
    let data: unknown;
    try {
      data = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(delivered.body));
    } catch {
      return drop('a record that is not JSON');
    }
    const parsed = OutboxRecordSchema.safeParse(data);
    if (!parsed.success) return drop('a record that is not a dogsled record');
    if (parsed.data.owner_host !== this.me) return drop('a record for another owner');
    return parsed.data;
  }

  private warnOnce(line: string): void {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.io.warn(line);
  }
}
