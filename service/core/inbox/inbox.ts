// The inbox rules of the spec ("Inbox", "Backoff"): which records a reader may take now, the lease a
// claim takes (the shared backoff: 10 s, doubling with jitter, 5 min cap), what an ack, a re-offer
// and a gone terminal do to records, and how long settled records are kept. Pure: records and
// `now` in, records out; the random draw for the jitter is passed in.
// States: pending -> claimed (lease) -> delivered; claimed past its lease -> offered again;
// pending|claimed -> failed (the terminal is gone). Delivered and failed records never change again.

import { backoffRetryAt } from '../common/backoff.js';
import { HOST_IDENTITY } from '../fleet/fleet-types.js';
import { clip, plainLine } from '../text/clean.js';
import type { Inbox, InboxReader, InboxRecord, InboxSender } from './inbox-types.js';

export const INBOX_KINDS = [
  'message',
  'task',
  'reply',
  'blocked',
  'admission',
  'launch_failed',
  'check_in',
  'undelivered',
] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

/** Delivered and failed records are kept a day for `inbox list`, like settled tickets. */
export const INBOX_RETENTION_MS = 24 * 3_600_000;
/** The largest message `send` stores (a 1 MB message is stored whole; a runaway one is refused). */
export const MESSAGE_MAX_BYTES = 4 * 1024 * 1024;
/** Undelivered records one inbox holds before `send` refuses more: a reader this far behind is stuck. */
export const INBOX_UNDELIVERED_MAX = 500;

export function isInboxKind(kind: string): kind is InboxKind {
  return (INBOX_KINDS as readonly string[]).includes(kind);
}

export function isUndelivered(record: Pick<InboxRecord, 'state'>): boolean {
  return record.state === 'pending' || record.state === 'claimed';
}

/** Pending, or claimed by a reader whose lease has ended (it crashed, or never acknowledged). */
export function isDeliverable(record: Pick<InboxRecord, 'state' | 'lease_until_ms'>, now: number): boolean {
  if (record.state === 'pending') return true;
  return record.state === 'claimed' && (record.lease_until_ms ?? 0) <= now;
}

/** Oldest first; the id breaks ties, so every reader sees one order. */
export function inDeliveryOrder<T extends Pick<InboxRecord, 'created_ms' | 'id'>>(
  records: readonly T[],
): T[] {
  return [...records].sort((a, b) => a.created_ms - b.created_ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The records one delivery takes: deliverable ones in order while their delivered size (`sizeOf`)
 * fits `budget`. A delivered record is bounded (a preview) well under a whole delivery, so a backlog
 * of large records still moves; only a delivery mostly taken by something else leaves them all.
 */
export function pickBatch(
  records: readonly InboxRecord[],
  now: number,
  budget: number,
  sizeOf: (record: InboxRecord) => number,
): { batch: InboxRecord[]; left: number } {
  const ready = inDeliveryOrder(records.filter((record) => isDeliverable(record, now)));
  const batch: InboxRecord[] = [];
  let used = 0;
  for (const record of ready) {
    const size = sizeOf(record);
    if (used + size > budget) break;
    batch.push(record);
    used += size;
  }
  return { batch, left: ready.length - batch.length };
}

/** A new inbox for a terminal nobody has written to yet. */
export function emptyInbox(terminal: string, pane: string | null): Inbox {
  return { version: 1, terminal, pane, reader: null, records: [] };
}

/** The registration a reader's first hook run (or claim) writes; unchanged when it already reads. */
export function withReader<T extends Pick<Inbox, 'pane' | 'reader'>>(
  inbox: T,
  reader: InboxReader,
): { next: T; changed: boolean } {
  const pane = reader.pane ?? inbox.pane;
  const current = inbox.reader;
  const same = current !== null && current.harness === reader.harness;
  if (same && current.pane === pane && inbox.pane === pane) return { next: inbox, changed: false };
  const registered_ms = same ? current.registered_ms : reader.registered_ms;
  return {
    next: { ...inbox, pane, reader: { ...(current ?? {}), harness: reader.harness, registered_ms, pane } },
    changed: true,
  };
}

function mapRecords(
  inbox: Inbox,
  change: (record: InboxRecord) => InboxRecord | undefined,
): { next: Inbox; changed: InboxRecord[] } {
  const changed: InboxRecord[] = [];
  const records = inbox.records.map((record) => {
    const next = change(record);
    if (next === undefined) return record;
    changed.push(next);
    return next;
  });
  return { next: changed.length > 0 ? { ...inbox, records } : inbox, changed };
}

/**
 * Claims `ids` (those still deliverable) for one reader: each gets a lease of the backoff wait for
 * its attempt number, after which it is offered again unless acknowledged. `random` is the jitter draw.
 */
export function claimRecords(
  inbox: Inbox,
  ids: readonly string[],
  now: number,
  random: number,
): { next: Inbox; claimed: InboxRecord[] } {
  const wanted = new Set(ids);
  const { next, changed } = mapRecords(inbox, (record) => {
    if (!wanted.has(record.id) || !isDeliverable(record, now)) return undefined;
    return {
      ...record,
      state: 'claimed',
      attempts: record.attempts + 1,
      lease_until_ms: backoffRetryAt(now, record.attempts, random),
    };
  });
  return { next, claimed: changed };
}

export interface AckOutcome {
  next: Inbox;
  acked: InboxRecord[];
  /** Ids this inbox does not hold. */
  unknown: string[];
  /** Ids of records that failed: they can no longer be delivered. */
  failed: string[];
}

/** Marks `ids` delivered. Already delivered ones are a no-op; unknown and failed ones are reported. */
export function ackRecords(inbox: Inbox, ids: readonly string[], now: number): AckOutcome {
  const byId = new Map(inbox.records.map((record) => [record.id, record]));
  const unknown = ids.filter((id) => !byId.has(id));
  const failed = ids.filter((id) => byId.get(id)?.state === 'failed');
  const wanted = new Set(ids);
  const { next, changed } = mapRecords(inbox, (record) => {
    if (!wanted.has(record.id) || !isUndelivered(record)) return undefined;
    return { ...record, state: 'delivered', lease_until_ms: null, delivered_ms: now };
  });
  return { next, acked: changed, unknown, failed };
}

/**
 * Expired leases back to pending: the record is offered again, and a reader that watches the file
 * (Pi) sees it change. The attempt count stays, so the next lease is longer.
 */
export function reofferExpired(inbox: Inbox, now: number): { next: Inbox; reoffered: InboxRecord[] } {
  const { next, changed } = mapRecords(inbox, (record) =>
    record.state === 'claimed' && (record.lease_until_ms ?? 0) <= now
      ? { ...record, state: 'pending', lease_until_ms: null }
      : undefined,
  );
  return { next, reoffered: changed };
}

/** Every undelivered record fails with `reason` (its terminal is gone). */
export function failUndelivered(
  inbox: Inbox,
  reason: string,
  now: number,
  only?: ReadonlySet<string>,
): { next: Inbox; failed: InboxRecord[] } {
  const { next, changed } = mapRecords(inbox, (record) =>
    isUndelivered(record) && (only === undefined || only.has(record.id))
      ? { ...record, state: 'failed', lease_until_ms: null, failed_ms: now, reason }
      : undefined,
  );
  return { next, failed: changed };
}

/** When a record was delivered or failed, or null while it waits. */
export function settledAt(record: InboxRecord): number | null {
  if (record.state === 'delivered') return record.delivered_ms ?? record.created_ms;
  if (record.state === 'failed') return record.failed_ms ?? record.created_ms;
  return null;
}

export function isExpiredRecord(record: InboxRecord, now: number): boolean {
  const settled = settledAt(record);
  return settled !== null && now - settled > INBOX_RETENTION_MS;
}

/** An inbox whose terminal is gone and that holds nothing worth keeping can be removed. */
export function isDisposable(inbox: { records: readonly InboxRecord[] }, now: number): boolean {
  return inbox.records.every((record) => isExpiredRecord(record, now));
}

export interface NewRecord {
  id: string;
  kind: InboxKind;
  sender: InboxSender;
  text: string;
  /** The text's body pointer when `text` is only its first part (core/inbox-space.ts). */
  body?: { bytes: number; chars: number };
  ref?: string | null;
  /** An admission of `place --branch`: its worktree and pane, for a reader that acts on them. */
  path?: string;
  pane_id?: string;
}

export function pendingRecord(record: NewRecord, now: number): InboxRecord {
  return {
    id: record.id,
    kind: record.kind,
    sender: record.sender,
    text: record.text,
    ...(record.body === undefined ? {} : { body: record.body }),
    created_ms: now,
    state: 'pending',
    attempts: 0,
    lease_until_ms: null,
    delivered_ms: null,
    failed_ms: null,
    reason: null,
    ref: record.ref ?? null,
    ...(record.path === undefined ? {} : { path: record.path }),
    ...(record.pane_id === undefined ? {} : { pane_id: record.pane_id }),
  };
}

/**
 * Appends `record` unless one with the same `ref` is already there (a notice the service posted
 * before a crash). Returns the record in the inbox either way.
 */
export function appendRecord(
  inbox: Inbox,
  record: InboxRecord,
): { next: Inbox; record: InboxRecord; added: boolean } {
  if (record.ref !== null) {
    const existing = inbox.records.find((r) => r.ref === record.ref);
    if (existing) return { next: inbox, record: existing, added: false };
  }
  return { next: { ...inbox, records: [...inbox.records, record] }, record, added: true };
}

/** Why `send` must not add a record here, or null when it may. */
export function sendRefusal(inbox: Inbox | undefined): 'no reader' | 'full' | null {
  if (!inbox?.reader) return 'no reader';
  if (inbox.records.filter(isUndelivered).length >= INBOX_UNDELIVERED_MAX) return 'full';
  return null;
}

/**
 * Whether a record sent now waits for the target's harness to act (spec, "Inbox"): Claude Code and
 * Codex read their inbox only from their hooks, so an agent of theirs that is not working sees it at
 * its next prompt or stop. Pi's extension reads at once. Returns the state to name, else null.
 */
export function waitsForHook(harness: string | undefined, status: string | undefined): string | null {
  if (harness !== 'claude' && harness !== 'codex') return null;
  if (status === 'working') return null;
  // Herdr's `done` is an idle agent nobody has looked at yet.
  return status === 'blocked' ? 'blocked' : 'idle';
}

/** The longest sender field kept or shown (a pane id, an agent name, a host name). */
export const SENDER_FIELD_CHARS = 100;

/** One sender field as kept: escape-free, one line, bounded; empty is none. */
export function senderField(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const clean = clip(plainLine(value).trim(), SENDER_FIELD_CHARS);
  return clean === '' ? null : clean;
}

/**
 * A sender as a peer named it (`host send`, a record from a peer's outbox), made safe to keep: each
 * field cleaned and bounded, no field beyond the known ones, no terminal (a peer's names none here),
 * an identity only in its own form, and never the name `localId` of this host itself.
 */
export function senderFromPeer(sender: InboxSender, localId: string): InboxSender {
  const host = senderField(sender.host);
  const hostId = sender.host_id;
  return {
    pane: senderField(sender.pane),
    terminal: null,
    host: host === null || host === localId ? 'a peer' : host,
    name: senderField(sender.name),
    host_id: typeof hostId === 'string' && HOST_IDENTITY.test(hostId) ? hostId : null,
  };
}

/** The service as a sender: notices it posts itself (admissions, undelivered messages). */
export function serviceSender(host: string): InboxSender {
  return { pane: null, terminal: null, host, name: null };
}
