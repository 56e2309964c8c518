// The reader's side of an inbox: claim (register as the reader, then lease the next batch), ack
// (mark delivered what was shown), and list (what this terminal received and what it sent). Claims
// happen under the inbox lock, so two readers racing never take one record; a reader that dies
// between claim and ack gets the record offered again when its lease ends. Claims and acks read and
// write only the live file: what settled earlier (settled.ts) costs them nothing.

import { DogsledError, messageOf } from '../core/common/errors.js';
import {
  type AckOutcome,
  ackRecords,
  claimRecords,
  inDeliveryOrder,
  withReader,
} from '../core/inbox/inbox.js';
import { BATCH_CHARS, pickDelivery } from '../core/inbox/inbox-text.js';
import type { Inbox, InboxRecord } from '../core/inbox/inbox-types.js';
import { clip, plainLine } from '../core/text/clean.js';
import type { ProcessIO } from '../state/io.js';
import { inboxTerminals, readInbox, updateInbox } from './inbox-files.js';
import { mergeRecords, readSettled, withWholeText } from './settled.js';
import type { Whereabouts } from './whereabouts.js';

export interface Delivery {
  terminal: string;
  pane: string;
  /** Claimed now, in delivery order (oldest first). */
  records: InboxRecord[];
  /** Deliverable records left for the next delivery. */
  left: number;
}

export interface ClaimOptions {
  /** What the batch may take of the delivery (core/inbox-text.ts batchBudget); all of it by default. */
  budget?: number;
  /** A Stop hook's block count in its chain, recorded on the reader with the claim (core/stop-chain.ts). */
  stopBlocks?: number;
  /** The lease jitter draw; tests of the pure rule pass their own. */
  draw?: () => number;
}

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
  options: ClaimOptions = {},
): Promise<Delivery> {
  const budget = options.budget ?? BATCH_CHARS;
  const reader = { harness, registered_ms: io.now(), pane: at.pane };
  const seen = await readInbox(io, at.terminal);
  const registered = seen !== undefined && !withReader(seen, reader).changed;
  const ready = seen === undefined ? [] : pickDelivery(seen.records, io.now(), budget).batch;
  if (registered && ready.length === 0) return { terminal: at.terminal, pane: at.pane, records: [], left: 0 };
  return updateInbox(io, at.terminal, at.pane, (inbox) => {
    const now = io.now();
    const joined = withReader(inbox, reader);
    const { batch, left } = pickDelivery(joined.next.records, now, budget);
    const claim = claimRecords(
      joined.next,
      batch.map((record) => record.id),
      now,
      (options.draw ?? Math.random)(),
    );
    const { claimed } = claim;
    const next = claimed.length > 0 ? withStopBlocks(claim.next, options.stopBlocks) : claim.next;
    const byId = new Map(claimed.map((record) => [record.id, record]));
    const records = batch.flatMap((record) => byId.get(record.id) ?? []);
    const result = { terminal: at.terminal, pane: at.pane, records, left };
    return joined.changed || claimed.length > 0 ? { result, next } : { result };
  });
}

function withStopBlocks(inbox: Inbox, blocks: number | undefined): Inbox {
  if (blocks === undefined || inbox.reader === null) return inbox;
  return { ...inbox, reader: { ...inbox.reader, stop_blocks: blocks } };
}

/** How many Stop blocks in a row this terminal's reader recorded (none: 0). */
export async function recordedStopBlocks(io: ProcessIO, at: Pick<Whereabouts, 'terminal'>): Promise<number> {
  return (await readInbox(io, at.terminal))?.reader?.stop_blocks ?? 0;
}

/** Records a Stop block that claimed nothing (a reminder alone), so the chain's count stays right. */
export async function noteStopBlock(
  io: ProcessIO,
  at: Pick<Whereabouts, 'terminal' | 'pane'>,
  blocks: number,
): Promise<void> {
  await updateInbox(io, at.terminal, at.pane, (inbox) =>
    inbox.reader === null || inbox.reader.stop_blocks === blocks
      ? { result: undefined }
      : { result: undefined, next: withStopBlocks(inbox, blocks) },
  );
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
  return updateInbox(io, at.terminal, at.pane, async (inbox) => {
    const outcome = ackRecords(inbox, ids, io.now());
    if (strict && outcome.unknown.length > 0) {
      // Settled since and moved out of the live file: delivered is done already, failed stays failed.
      const settled = new Map((await readSettled(io, at.terminal)).map((record) => [record.id, record]));
      outcome.failed.push(...outcome.unknown.filter((id) => settled.get(id)?.state === 'failed'));
      outcome.unknown = outcome.unknown.filter((id) => !settled.has(id));
    }
    const named = (list: string[]) => list.map((id) => clip(plainLine(id), 40)).join(', ');
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
 * What this terminal received (oldest first) and what it sent to inboxes on this host, settled
 * records included and every text whole. An inbox of another terminal that cannot be read is
 * skipped with a warning; this one's must be readable.
 */
export async function listInbox(
  io: ProcessIO,
  at: Pick<Whereabouts, 'terminal' | 'pane'>,
): Promise<InboxListing> {
  const ownLive = await readInbox(io, at.terminal);
  const own = mergeRecords(ownLive, await readSettled(io, at.terminal));
  const sent: SentRecord[] = [];
  for (const terminal of await inboxTerminals(io)) {
    try {
      const live = terminal === at.terminal ? ownLive : await readInbox(io, terminal);
      const records = terminal === at.terminal ? own : mergeRecords(live, await readSettled(io, terminal));
      const mine = records.filter((record) => record.sender.terminal === at.terminal);
      for (const record of await withWholeText(io, terminal, mine)) {
        sent.push({ record, terminal, pane: live?.pane ?? null });
      }
    } catch (error) {
      io.warn(`dogsled: warning: ${messageOf(error)}`);
    }
  }
  sent.sort((a, b) => a.record.created_ms - b.record.created_ms);
  return {
    terminal: at.terminal,
    pane: at.pane,
    received: await withWholeText(io, at.terminal, inDeliveryOrder(own)),
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
