import { describe, expect, it } from 'vitest';
import {
  ackRecords,
  appendRecord,
  claimRecords,
  emptyInbox,
  failUndelivered,
  INBOX_UNDELIVERED_MAX,
  isDeliverable,
  isDisposable,
  pendingRecord,
  pickBatch,
  reofferExpired,
  sendRefusal,
  waitsForHook,
  withReader,
} from '../../../../service/core/inbox/inbox.js';
import type { Inbox, InboxRecord } from '../../../../service/core/inbox/inbox-types.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const sender = { pane: 'w1:p1', terminal: 'term_a', host: 'local', name: 'lead' };

function record(id: string, created: number, text = `text of ${id}`): InboxRecord {
  return pendingRecord({ id, kind: 'message', sender, text }, created);
}

function inboxOf(...records: InboxRecord[]): Inbox {
  return { ...emptyInbox('term_b', 'w1:p2'), records };
}

const size = (r: InboxRecord) => r.text.length;

describe('which records a reader may take', () => {
  it('takes pending records, and claimed ones only once their lease has ended', () => {
    expect(isDeliverable({ state: 'pending', lease_until_ms: null }, T0)).toBe(true);
    expect(isDeliverable({ state: 'claimed', lease_until_ms: T0 + 1 }, T0)).toBe(false);
    expect(isDeliverable({ state: 'claimed', lease_until_ms: T0 }, T0)).toBe(true);
    expect(isDeliverable({ state: 'delivered', lease_until_ms: null }, T0)).toBe(false);
    expect(isDeliverable({ state: 'failed', lease_until_ms: null }, T0)).toBe(false);
  });

  it('delivers oldest first, ids breaking ties, whatever the order in the file', () => {
    const inbox = inboxOf(record('m_c', T0 + 2), record('m_b', T0), record('m_a', T0));
    expect(pickBatch(inbox.records, T0 + 5, 1_000, size).batch.map((r) => r.id)).toEqual([
      'm_a',
      'm_b',
      'm_c',
    ]);
  });

  it('stops a batch at the budget, and takes nothing when even the first does not fit', () => {
    const inbox = inboxOf(record('m_1', T0, 'x'.repeat(50)), record('m_2', T0 + 1, 'y'.repeat(60)));
    expect(pickBatch(inbox.records, T0 + 5, 100, size)).toMatchObject({ batch: [{ id: 'm_1' }], left: 1 });
    expect(pickBatch(inbox.records, T0 + 5, 10, size)).toMatchObject({ batch: [], left: 2 });
    expect(pickBatch(inbox.records, T0 + 5, 110, size).batch).toHaveLength(2);
  });
});

describe('a claim is a lease on the shared backoff', () => {
  it('leases 10 s ±20% on the first attempt and doubles after each expiry', () => {
    const first = claimRecords(inboxOf(record('m_1', T0)), ['m_1'], T0, 0.5);
    expect(first.claimed).toEqual([
      expect.objectContaining({ state: 'claimed', attempts: 1, lease_until_ms: T0 + 10_000 }),
    ]);
    const early = claimRecords(first.next, ['m_1'], T0 + 9_999, 0.5);
    expect(early.claimed).toEqual([]);
    const second = claimRecords(first.next, ['m_1'], T0 + 10_000, 0.5);
    expect(second.claimed[0]).toMatchObject({ attempts: 2, lease_until_ms: T0 + 10_000 + 20_000 });
    const low = claimRecords(inboxOf(record('m_1', T0)), ['m_1'], T0, 0);
    expect(low.claimed[0]?.lease_until_ms).toBe(T0 + 8_000);
  });

  it('never leases longer than 5 minutes, however many attempts failed', () => {
    const tired = { ...record('m_1', T0), attempts: 40 };
    expect(claimRecords(inboxOf(tired), ['m_1'], T0, 0.999).claimed[0]?.lease_until_ms).toBe(T0 + 300_000);
  });

  it('claims only what is still deliverable: a record another reader holds is left alone', () => {
    const held = claimRecords(inboxOf(record('m_1', T0), record('m_2', T0)), ['m_1'], T0, 0.5).next;
    const second = claimRecords(held, ['m_1', 'm_2'], T0 + 1, 0.5);
    expect(second.claimed.map((r) => r.id)).toEqual(['m_2']);
  });
});

describe('acks, re-offers and failures', () => {
  it('acks claimed and pending records, ignores delivered ones and reports unknown and failed ids', () => {
    const claimed = claimRecords(inboxOf(record('m_1', T0), record('m_2', T0)), ['m_1'], T0, 0.5).next;
    const failed = failUndelivered(inboxOf(record('m_f', T0)), 'gone', T0).next.records;
    const inbox = { ...claimed, records: [...claimed.records, ...failed] };
    const outcome = ackRecords(inbox, ['m_1', 'm_2', 'm_x', 'm_f'], T0 + 5);
    expect(outcome.acked.map((r) => [r.id, r.state, r.delivered_ms])).toEqual([
      ['m_1', 'delivered', T0 + 5],
      ['m_2', 'delivered', T0 + 5],
    ]);
    expect(outcome.unknown).toEqual(['m_x']);
    expect(outcome.failed).toEqual(['m_f']);
    expect(ackRecords(outcome.next, ['m_1'], T0 + 9).acked).toEqual([]);
  });

  it('re-offers an expired lease as pending with its attempts kept, and leaves a live lease', () => {
    const claimed = claimRecords(inboxOf(record('m_1', T0), record('m_2', T0 + 1)), ['m_1'], T0, 0.5).next;
    const later = claimRecords(claimed, ['m_2'], T0 + 9_000, 0.5).next;
    const { next, reoffered } = reofferExpired(later, T0 + 10_000);
    expect(reoffered.map((r) => r.id)).toEqual(['m_1']);
    expect(next.records.map((r) => [r.id, r.state, r.attempts])).toEqual([
      ['m_1', 'pending', 1],
      ['m_2', 'claimed', 1],
    ]);
    expect(reofferExpired(next, T0 + 10_000).next).toBe(next);
  });

  it('fails only undelivered records, and only the ones named', () => {
    const inbox = ackRecords(
      inboxOf(record('m_1', T0), record('m_2', T0), record('m_3', T0)),
      ['m_1'],
      T0,
    ).next;
    const { failed } = failUndelivered(inbox, 'its terminal is gone', T0 + 1, new Set(['m_1', 'm_2']));
    expect(failed.map((r) => [r.id, r.state, r.reason])).toEqual([['m_2', 'failed', 'its terminal is gone']]);
  });

  it('an inbox is disposable once every record settled more than a day ago', () => {
    const inbox = ackRecords(inboxOf(record('m_1', T0), record('m_2', T0)), ['m_1', 'm_2'], T0).next;
    expect(isDisposable(inbox, T0 + 24 * HOUR)).toBe(false);
    expect(isDisposable(inbox, T0 + 24 * HOUR + 1)).toBe(true);
    expect(isDisposable(inboxOf(record('m_3', T0)), T0 + 48 * HOUR)).toBe(false);
    expect(isDisposable(inboxOf(), T0)).toBe(true);
  });
});

describe('readers, notices and refusals', () => {
  it('registers a reader once; a different harness or pane rewrites it', () => {
    const reader = { harness: 'claude', registered_ms: T0, pane: 'w1:p2' };
    const first = withReader(inboxOf(), reader);
    expect(first).toMatchObject({ changed: true, next: { reader } });
    expect(withReader(first.next, { ...reader, registered_ms: T0 + 9 }).changed).toBe(false);
    const moved = withReader(first.next, { ...reader, pane: 'w3:p1', registered_ms: T0 + 9 });
    expect(moved.next).toMatchObject({
      pane: 'w3:p1',
      reader: { harness: 'claude', registered_ms: T0, pane: 'w3:p1' },
    });
    expect(
      withReader(first.next, { ...reader, harness: 'pi', registered_ms: T0 + 9 }).next.reader,
    ).toMatchObject({
      harness: 'pi',
      registered_ms: T0 + 9,
    });
  });

  it('posts a notice once per ref, so a notice posted before a crash is not repeated', () => {
    const notice = { ...record('m_n', T0), ref: 'ticket:t_1:admitted' };
    const once = appendRecord(inboxOf(), notice);
    const twice = appendRecord(once.next, { ...notice, id: 'm_other' });
    expect(twice.added).toBe(false);
    expect(twice.record.id).toBe('m_n');
    expect(twice.next.records).toHaveLength(1);
  });

  it('refuses a send to an inbox without a reader, or one whose reader is far behind', () => {
    expect(sendRefusal(undefined)).toBe('no reader');
    expect(sendRefusal(inboxOf())).toBe('no reader');
    const read = withReader(inboxOf(), { harness: 'codex', registered_ms: T0, pane: null }).next;
    expect(sendRefusal(read)).toBeNull();
    const records = Array.from({ length: INBOX_UNDELIVERED_MAX }, (_, i) => record(`m_${i}`, T0));
    expect(sendRefusal({ ...read, records })).toBe('full');
  });
});

describe('waitsForHook', () => {
  it('names the state of a Claude Code or Codex agent that is not working; nothing for Pi or a working one', () => {
    expect(waitsForHook('claude', 'idle')).toBe('idle');
    expect(waitsForHook('codex', 'done')).toBe('idle');
    expect(waitsForHook('claude', 'blocked')).toBe('blocked');
    // A plain shell whose reader is a hook, or an agent Herdr does not list: its hook has to run.
    expect(waitsForHook('claude', undefined)).toBe('idle');
    expect(waitsForHook('claude', 'working')).toBeNull();
    expect(waitsForHook('pi', 'idle')).toBeNull();
    expect(waitsForHook(undefined, 'idle')).toBeNull();
  });
});
