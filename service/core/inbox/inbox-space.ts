// The inbox's space rules: which text stays in the inbox file and which lives whole in a body file of
// its own, what a record weighs against its terminal's cap, and the compaction plan that moves
// settled records out of the live file (so a hook reads only what waits, never the history), drops
// what expired and makes room by evicting the oldest settled records. Undelivered records are never
// evicted: a send that does not fit beside them is refused. Pure: records and `now` in, a plan out.

import { cutAt, stripEscapes } from '../text/clean.js';
import { isExpiredRecord, isUndelivered, settledAt } from './inbox.js';
import type { InboxRecord } from './inbox-types.js';

/**
 * A text up to this many UTF-16 units stays in the inbox file whole. A longer one keeps this much
 * there, more than a delivery's 2,000-character preview, and lives whole in its body file.
 */
export const INLINE_TEXT_CHARS = 2_048;
/** One terminal's inbox holds at most this, waiting and settled records and their bodies together. */
export const INBOX_MAX_BYTES = 32 * 1024 * 1024;
/** Settled records one terminal keeps at most, besides the byte cap (the oldest go first). */
export const SETTLED_MAX_RECORDS = 10_000;
/** What a record weighs beyond its text (its fields), so that many tiny records count too. */
export const RECORD_OVERHEAD_BYTES = 512;
/** The service moves settled records out of a live file once this many wait there... */
export const COMPACT_AT = 32;
/** ...or once the oldest of them settled this long ago. */
export const COMPACT_AFTER_MS = 5 * 60_000;

/** The body pointer a record carries when its text lives in a file of its own (a type: records' fields are open). */
export type BodyPointer = { bytes: number; chars: number };

/** A text as the inbox file keeps it: whole, or its first part with a pointer to its body file. */
export type StoredText = { text: string; body?: BodyPointer };

/** How a text is stored: whole, or its first INLINE_TEXT_CHARS with the whole in a body file. */
export function storedText(text: string): StoredText {
  if (text.length <= INLINE_TEXT_CHARS) return { text };
  return {
    text: cutAt(text, INLINE_TEXT_CHARS),
    body: { bytes: Buffer.byteLength(text, 'utf8'), chars: stripEscapes(text).trimEnd().length },
  };
}

/** What a record weighs against its terminal's cap: its whole text and its fields. */
export function recordBytes(record: Pick<InboxRecord, 'text' | 'body'>): number {
  return (record.body?.bytes ?? Buffer.byteLength(record.text, 'utf8')) + RECORD_OVERHEAD_BYTES;
}

export interface CompactionPlan {
  /** The live file's records: those still waiting, in their order. */
  live: InboxRecord[];
  /** The settled file's records, oldest settled first. */
  settled: InboxRecord[];
  /** Records gone for good (expired a day after they settled, or evicted for room): their bodies go too. */
  dropped: InboxRecord[];
  /** Settled records that left the live file now. */
  moved: number;
  /** What the waiting records weigh. */
  waitingBytes: number;
  /** Whether `incoming` more bytes fit beside the waiting records; when not, nothing may be written. */
  fits: boolean;
}

/**
 * Moves the live file's settled records to the settled ones (each once, by id: a crash between the
 * two writes leaves a record in both), drops those settled more than a day ago, then evicts the
 * oldest settled records until everything, `incoming` bytes included, is within the caps.
 */
export function compactionPlan(
  live: readonly InboxRecord[],
  settled: readonly InboxRecord[],
  now: number,
  incoming = 0,
): CompactionPlan {
  const waiting = live.filter(isUndelivered);
  const leaving = live.filter((record) => !isUndelivered(record));
  const byId = new Map<string, InboxRecord>();
  for (const record of [...settled, ...leaving]) byId.set(record.id, record);
  const dropped: InboxRecord[] = [];
  const kept: InboxRecord[] = [];
  for (const record of byId.values()) (isExpiredRecord(record, now) ? dropped : kept).push(record);
  kept.sort((a, b) => (settledAt(a) ?? a.created_ms) - (settledAt(b) ?? b.created_ms));
  const waitingBytes = sum(waiting.map(recordBytes));
  // Nothing incoming always fits: moving settled records out never adds to what waits.
  const fits = incoming === 0 || waitingBytes + incoming <= INBOX_MAX_BYTES;
  let total = waitingBytes + (fits ? incoming : 0) + sum(kept.map(recordBytes));
  let first = 0;
  while (first < kept.length && (total > INBOX_MAX_BYTES || kept.length - first > SETTLED_MAX_RECORDS)) {
    const oldest = kept[first] as InboxRecord;
    total -= recordBytes(oldest);
    dropped.push(oldest);
    first++;
  }
  return { live: waiting, settled: kept.slice(first), dropped, moved: leaving.length, waitingBytes, fits };
}

/** Whether a plan changes the settled file (or only reads it). */
export function changesSettled(plan: CompactionPlan, settledBefore: number): boolean {
  return plan.moved > 0 || plan.dropped.length > 0 || plan.settled.length !== settledBefore;
}

/** The service compacts a live file once enough settled records wait in it, or the oldest long enough. */
export function compactionDue(records: readonly InboxRecord[], now: number): boolean {
  let count = 0;
  for (const record of records) {
    const at = settledAt(record);
    if (at === null) continue;
    if (++count >= COMPACT_AT || now - at >= COMPACT_AFTER_MS) return true;
  }
  return false;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
