// outbox.json, this host's side of messages for owners on other hosts (core/outbox.ts has the rules):
// the service's workers post a child's reply, blocked report, close and branch facts here when its
// owner is elsewhere, and `host outbox claim|ack` (the owner's service, over SSH) takes them. One
// file under its own lock, taken alone; anything but a regular file there is a one-line error.

import type { Item } from '../core/agents/item-types.js';
import {
  ackRecords,
  addRecord,
  claimRecords,
  keptRecords,
  NOTICE_AWAIT_MS,
} from '../core/inbox/outbox-rule.js';
import type { Outbox, OutboxRecord } from '../core/inbox/outbox-types.js';
import { guarded } from '../state/engine/guarded.js';
import { newId } from '../state/engine/ids.js';
import { readState, updateState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { NoticesSchema, OutboxSchema } from '../state/schemas/outbox-schemas.js';

export type Posted = Pick<OutboxRecord, 'ref'> & Partial<Pick<OutboxRecord, 'message' | 'closed' | 'branch'>>;

const EMPTY: Outbox = { version: 1, records: [] };

function update<R>(io: StateIO, fn: (outbox: Outbox) => { result: R; next?: Outbox }): Promise<R> {
  const file = io.paths.outbox;
  return guarded(io, file, () => updateState(file, OutboxSchema, io, (current) => fn(current ?? EMPTY)));
}

/** Whether the item's owner is on another host (its messages go to the outbox, not an inbox here). */
export function ownerElsewhere(item: Pick<Item, 'owner_host'>): item is { owner_host: string } {
  return typeof item.owner_host === 'string' && item.owner_host !== '';
}

/**
 * Posts records for the owner of `item` in one write, in order (each once per ref: a reply and the
 * close it comes with reach the owner together); true when any was added now.
 */
export async function postForOwner(
  io: StateIO,
  item: Pick<Item, 'id' | 'owner_host'>,
  posted: Posted | readonly Posted[],
): Promise<boolean> {
  if (!ownerElsewhere(item)) return false;
  return postForHost(io, item.owner_host, item.id, posted);
}

/**
 * Posts records about child `item` for the service of host `host` (an identity): the owner's, or a
 * sender's on another host (its `<name> finished`). Each once per ref and host.
 */
export async function postForHost(
  io: StateIO,
  host: string,
  item: string,
  posted: Posted | readonly Posted[],
): Promise<boolean> {
  const now = io.now();
  const records: OutboxRecord[] = (Array.isArray(posted) ? posted : [posted]).map((one) => ({
    id: newId('o'),
    owner_host: host,
    item,
    created_ms: now,
    attempts: 0,
    lease_until_ms: null,
    ...one,
  }));
  return update(io, (outbox) => {
    let next = keptRecords(outbox.records, io.now());
    let added = false;
    for (const record of records) {
      const step = addRecord(next, record);
      next = step.next;
      added ||= step.added;
    }
    return added ? { result: true, next: { ...outbox, records: next } } : { result: false };
  });
}

/** The owner's free records, leased for `leaseMs`. */
export function claimOutbox(io: StateIO, owner: string, leaseMs: number): Promise<OutboxRecord[]> {
  return update(io, (outbox) => {
    const { next, claimed } = claimRecords(keptRecords(outbox.records, io.now()), owner, io.now(), leaseMs);
    return claimed.length === 0 ? { result: [] } : { result: claimed, next: { ...outbox, records: next } };
  });
}

/** Removes the owner's records `ids` (taken and written on its host); returns how many went. */
export function ackOutbox(io: StateIO, owner: string, ids: readonly string[]): Promise<number> {
  return update(io, (outbox) => {
    const { next, removed } = ackRecords(outbox.records, owner, ids);
    return removed === 0 ? { result: 0 } : { result: removed, next: { ...outbox, records: next } };
  });
}

/** Every waiting record (for `inbox list` on this host and tests); a missing file has none. */
export async function readOutbox(io: StateIO): Promise<OutboxRecord[]> {
  const file = io.paths.outbox;
  return (await guarded(io, file, () => readState(file, OutboxSchema, io)))?.records ?? [];
}

/** A sender here messaged `peer`: its service takes that peer's outbox for the next day. */
export async function awaitNotices(io: StateIO, peer: string): Promise<void> {
  const file = io.paths.notices;
  const now = io.now();
  await guarded(io, file, () =>
    updateState(file, NoticesSchema, io, (current) => {
      const kept = (current?.peers ?? []).filter((entry) => entry.until_ms > now && entry.host !== peer);
      const peers = [...kept, { host: peer, until_ms: now + NOTICE_AWAIT_MS }];
      return { result: undefined, next: { version: 1 as const, peers } };
    }),
  );
}

/** The peers a sender here still awaits notices from; a missing file awaits none. */
export async function awaitedPeers(io: StateIO): Promise<string[]> {
  const file = io.paths.notices;
  const now = io.now();
  const current = await guarded(io, file, () => readState(file, NoticesSchema, io));
  return (current?.peers ?? []).filter((entry) => entry.until_ms > now).map((entry) => entry.host);
}
