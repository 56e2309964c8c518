// The reader's side of an inbox: claim (register as the reader, then lease the next batch), ack
// (mark delivered what was shown), and list (what this terminal received and what it sent). Claims
// happen under the inbox lock, so two readers racing never take one record; a reader that dies
// between claim and ack gets the record offered again when its lease ends.

import {
  type AckOutcome,
  ackRecords,
  claimRecords,
  inDeliveryOrder,
  pickBatch,
  withReader,
} from '../core/inbox.js';
import { BATCH_CHARS, deliverySizeBound } from '../core/inbox-text.js';
import { clipText, plainLine } from '../core/text-clean.js';
import { DogsledError, messageOf } from '../errors.js';
import type { InboxRecord } from '../state/inbox-schemas.js';
import type { ProcessIO } from '../state/io.js';
import { inboxTerminals, readInbox, updateInbox } from './files.js';
import type { Whereabouts } from './whereabouts.js';

export interface Delivery {
  terminal: string;
  pane: string;
  /** Claimed now, in delivery order (oldest first). */
  records: InboxRecord[];
  /** Deliverable records left for the next delivery. */
  left: number;
}

/** The lease jitter draw; tests of the pure rule pass their own. */
type Draw = () => number;

/**
 * Registers `harness` as this terminal's reader (first run) and claims the next batch, of at most
 * `budget` delivered characters (a Stop response gives part of BATCH_CHARS to the gate's reminder).
 * With the reader registered and nothing deliverable, no lock is taken and nothing is written: the
 * common case of every prompt and stop stays a plain read.
 */
export async function claimDelivery(
  io: ProcessIO,
  at: Pick<Whereabouts, 'terminal' | 'pane'>,
  harness: string,
  budget: number = BATCH_CHARS,
  draw: Draw = Math.random,
): Promise<Delivery> {
  const reader = { harness, registered_ms: io.now(), pane: at.pane };
  const seen = await readInbox(io, at.terminal);
  const registered = seen !== undefined && !withReader(seen, reader).changed;
  const ready = seen === undefined ? [] : pickBatch(seen.records, io.now(), budget, deliverySizeBound).batch;
  if (registered && ready.length === 0) return { terminal: at.terminal, pane: at.pane, records: [], left: 0 };
  return updateInbox(io, at.terminal, at.pane, (inbox) => {
    const now = io.now();
    const joined = withReader(inbox, reader);
    const { batch, left } = pickBatch(joined.next.records, now, budget, deliverySizeBound);
    const { next, claimed } = claimRecords(
      joined.next,
      batch.map((record) => record.id),
      now,
      draw(),
    );
    const byId = new Map(claimed.map((record) => [record.id, record]));
    const records = batch.flatMap((record) => byId.get(record.id) ?? []);
    const result = { terminal: at.terminal, pane: at.pane, records, left };
    return joined.changed || claimed.length > 0 ? { result, next } : { result };
  });
}

/**
 * Marks `ids` delivered. `strict` (the `inbox ack` command) refuses ids this inbox does not hold or
 * that failed, writing nothing; a hook acks exactly what it printed and ignores what changed since.
 */
export async function ackDelivery(
  io: ProcessIO,
  at: Pick<Whereabouts, 'terminal' | 'pane'>,
  ids: readonly string[],
  strict: boolean,
): Promise<AckOutcome> {
  return updateInbox(io, at.terminal, at.pane, (inbox) => {
    const outcome = ackRecords(inbox, ids, io.now());
    const named = (list: string[]) => list.map((id) => clipText(plainLine(id), 40)).join(', ');
    if (strict && outcome.unknown.length > 0) {
      throw new DogsledError(
        `inbox ack: no record ${named(outcome.unknown)} in this inbox; nothing was acknowledged`,
      );
    }
    if (strict && outcome.failed.length > 0) {
      throw new DogsledError(
        `inbox ack: ${named(outcome.failed)} failed and cannot be delivered; nothing was acknowledged`,
      );
    }
    return outcome.acked.length > 0 ? { result: outcome, next: outcome.next } : { result: outcome };
  });
}

export interface SentRecord {
  record: InboxRecord;
  /** The inbox it went to. */
  terminal: string;
  pane: string | null;
}

export interface InboxListing {
  terminal: string;
  pane: string;
  received: InboxRecord[];
  sent: SentRecord[];
}

/**
 * What this terminal received (oldest first) and what it sent to inboxes on this host. An inbox of
 * another terminal that cannot be read is skipped with a warning; this one's must be readable.
 */
export async function listInbox(
  io: ProcessIO,
  at: Pick<Whereabouts, 'terminal' | 'pane'>,
): Promise<InboxListing> {
  const own = await readInbox(io, at.terminal);
  const sent: SentRecord[] = [];
  for (const terminal of await inboxTerminals(io)) {
    let inbox: Awaited<ReturnType<typeof readInbox>>;
    try {
      inbox = terminal === at.terminal ? own : await readInbox(io, terminal);
    } catch (error) {
      io.warn(`dogsled: warning: ${messageOf(error)}`);
      continue;
    }
    for (const record of inbox?.records ?? []) {
      if (record.sender.terminal === at.terminal) sent.push({ record, terminal, pane: inbox?.pane ?? null });
    }
  }
  sent.sort((a, b) => a.record.created_ms - b.record.created_ms);
  return {
    terminal: at.terminal,
    pane: at.pane,
    received: inDeliveryOrder(own?.records ?? []),
    sent,
  };
}

/** Registers `harness` as the reader without claiming anything (a context hook at session start). */
export async function registerReader(
  io: ProcessIO,
  at: Pick<Whereabouts, 'terminal' | 'pane'>,
  harness: string,
): Promise<void> {
  const reader = { harness, registered_ms: io.now(), pane: at.pane };
  const seen = await readInbox(io, at.terminal);
  if (seen !== undefined && !withReader(seen, reader).changed) return;
  await updateInbox(io, at.terminal, at.pane, (inbox) => {
    const joined = withReader(inbox, reader);
    return joined.changed ? { result: undefined, next: joined.next } : { result: undefined };
  });
}
