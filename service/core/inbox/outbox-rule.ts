// The outbox rules (spec, "Inbox": a message to an agent belongs to the inbox on the agent's host):
// a child here whose owner is on another host leaves its messages in this host's outbox, keyed by
// the owner's host identity, and the owner's service pulls them. A claim leases records (taken
// again once the lease ends: the claimer crashed); an ack removes them. A record's `ref` is posted
// once. Pure: records and `now` in, records out.

import type { Item } from '../agents/item-types.js';
import type { BranchObservationRecord, OutboxRecord } from './outbox-types.js';

/** How long the owner's service has to write what it claimed into its inbox and ack it. */
export const OUTBOX_LEASE_MS = 60_000;
/** Records one claim takes: a backlog moves in batches, never one huge frame. */
export const OUTBOX_CLAIM_MAX = 50;
/** Records an owner that never comes back leaves here: a week, like the sweep journal. */
export const OUTBOX_RETENTION_MS = 7 * 24 * 3_600_000;
/** How long after a `send --host` this host's service takes that peer's outbox for the sender. */
export const NOTICE_AWAIT_MS = 24 * 3_600_000;

/** Records past retention go; everything else stays until its owner acks it. */
export function keptRecords(records: readonly OutboxRecord[], now: number): OutboxRecord[] {
  return records.filter((record) => now - record.created_ms <= OUTBOX_RETENTION_MS);
}

/** `record` added unless one with its ref is already waiting (a restarted service posts nothing twice). */
export function addRecord(
  records: readonly OutboxRecord[],
  record: OutboxRecord,
): { next: OutboxRecord[]; added: boolean } {
  if (records.some((r) => r.owner_host === record.owner_host && r.ref === record.ref)) {
    return { next: [...records], added: false };
  }
  return { next: [...records, record], added: true };
}

/** The owner's records that are free (never claimed, or their lease ended), oldest first, leased now. */
export function claimRecords(
  records: readonly OutboxRecord[],
  owner: string,
  now: number,
  leaseMs: number,
): { next: OutboxRecord[]; claimed: OutboxRecord[] } {
  const free = records
    .filter((r) => r.owner_host === owner && (r.lease_until_ms === null || r.lease_until_ms <= now))
    .sort((a, b) => a.created_ms - b.created_ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, OUTBOX_CLAIM_MAX);
  if (free.length === 0) return { next: [...records], claimed: [] };
  const ids = new Set(free.map((r) => r.id));
  const lease = now + Math.max(1, leaseMs);
  const next = records.map((r) =>
    ids.has(r.id) ? { ...r, lease_until_ms: lease, attempts: r.attempts + 1 } : r,
  );
  const leased = new Map(next.filter((r) => ids.has(r.id)).map((r) => [r.id, r]));
  return { next, claimed: free.map((r) => leased.get(r.id) as OutboxRecord) };
}

/** The records without the owner's acked ones; another owner's ids are never removed. */
export function ackRecords(
  records: readonly OutboxRecord[],
  owner: string,
  ids: readonly string[],
): { next: OutboxRecord[]; removed: number } {
  const gone = new Set(ids);
  const next = records.filter((r) => !(r.owner_host === owner && gone.has(r.id)));
  return { next, removed: records.length - next.length };
}

/**
 * The owner's items after a peer's records (`peer` is the host the records came from): a `closed`
 * closes the item (once: an item closed already keeps its reason) with the child's reply; a `branch`
 * replaces what the owner knows of the branch unless it knows a later observation. Records for items of another host change nothing.
 */
export function ownerItemsAfter(
  items: readonly Item[],
  peer: string,
  records: readonly OutboxRecord[],
  now: number,
): { next: Item[]; changed: boolean } {
  let changed = false;
  const next = items.map((item) => {
    if (item.host !== peer) return item;
    let current = item;
    for (const record of records) {
      if (record.item !== item.id) continue;
      // A record that came again late (the bus redelivers what was not acknowledged) never moves
      // the branch back to what was seen before.
      if (record.branch && record.branch.observed_ms >= (current.branch_seen?.observed_ms ?? -Infinity)) {
        current = { ...current, branch_seen: { ...record.branch } };
        changed = true;
      }
      if (record.closed && current.closed_ms === null) {
        current = {
          ...current,
          closed_ms: now,
          close_reason: record.closed.reason,
          reply: record.closed.reply,
        };
        changed = true;
      }
    }
    return current;
  });
  return { next, changed };
}

/**
 * Whether the owner still needs a peer's outbox for `item`: open, or a child whose branch there has
 * not been seen landed (its TO LAND row follows what the peer forwards).
 */
export function awaitsPeer(item: Item): boolean {
  if (item.closed_ms === null) return true;
  return item.kind === 'agent' && !!item.branch && item.branch_seen?.landed !== true;
}

/**
 * The branch observations of the owner's children on peers, from what each peer forwarded onto the
 * item (`branch_seen`): the owner cannot read a branch there, so these stand in for branches.json.
 */
export function forwardedBranches(items: readonly Item[], localHost: string): BranchObservationRecord[] {
  return items.flatMap((item) =>
    item.host === localHost || item.kind !== 'agent' || !item.branch || !item.branch_seen
      ? []
      : [
          {
            item: item.id,
            child: item.name ?? item.id,
            host: item.host,
            repository: item.repository ?? '',
            branch: item.branch,
            ...item.branch_seen,
          },
        ],
  );
}
