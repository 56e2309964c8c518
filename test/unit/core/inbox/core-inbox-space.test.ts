import { describe, expect, it } from 'vitest';
import {
  ackRecords,
  emptyInbox,
  failUndelivered,
  pendingRecord,
  senderFromPeer,
} from '../../../../service/core/inbox/inbox.js';
import {
  COMPACT_AFTER_MS,
  COMPACT_AT,
  compactionDue,
  compactionPlan,
  INBOX_MAX_BYTES,
  INLINE_TEXT_CHARS,
  RECORD_OVERHEAD_BYTES,
  recordBytes,
  SETTLED_MAX_RECORDS,
  storedText,
} from '../../../../service/core/inbox/inbox-space.js';
import type { InboxRecord } from '../../../../service/core/inbox/inbox-types.js';
import { nextStopBlock, stopBlockLimit } from '../../../../service/core/inbox/stop-chain.js';

const T0 = 1_700_000_000_000;
const DAY = 24 * 3_600_000;
const MIB = 1024 * 1024;
const sender = { pane: 'w1:p1', terminal: 'term_a', host: 'local', name: 'lead' };

function record(id: string, created: number, text = `text of ${id}`): InboxRecord {
  const stored = storedText(text);
  return pendingRecord({ id, kind: 'message', sender, ...stored }, created);
}

function delivered(id: string, at: number, text?: string): InboxRecord {
  return ackRecords({ ...emptyInbox('t', null), records: [record(id, at - 1, text)] }, [id], at).next
    .records[0] as InboxRecord;
}

describe('how a text is stored', () => {
  it('keeps a short text whole and a long one as its first part with a body pointer', () => {
    expect(storedText('hi')).toEqual({ text: 'hi' });
    const long = `${'é'.repeat(INLINE_TEXT_CHARS)}\x1b[2J tail `;
    const stored = storedText(long);
    expect(stored.text).toBe('é'.repeat(INLINE_TEXT_CHARS));
    expect(stored.body).toEqual({ bytes: 2 * INLINE_TEXT_CHARS + 10, chars: INLINE_TEXT_CHARS + 5 });
  });

  it('weighs a record by its whole text and its fields', () => {
    expect(recordBytes({ text: 'abc' })).toBe(3 + RECORD_OVERHEAD_BYTES);
    expect(recordBytes({ text: 'abc', body: { bytes: 4 * MIB, chars: 1 } })).toBe(
      4 * MIB + RECORD_OVERHEAD_BYTES,
    );
  });
});

describe('compaction', () => {
  it('moves settled records out of the live file, once each, and keeps what waits in its order', () => {
    const waiting = [record('m_w2', T0 + 2), record('m_w1', T0 + 1)];
    const failed = failUndelivered({ ...emptyInbox('t', null), records: [record('m_f', T0)] }, 'gone', T0 + 5)
      .next.records[0] as InboxRecord;
    const old = delivered('m_d', T0 + 3);
    const plan = compactionPlan(
      [waiting[0] as InboxRecord, old, failed, waiting[1] as InboxRecord],
      [old],
      T0 + 10,
    );
    expect(plan.live.map((r) => r.id)).toEqual(['m_w2', 'm_w1']);
    expect(plan.settled.map((r) => r.id)).toEqual(['m_d', 'm_f']);
    expect([plan.moved, plan.dropped.length, plan.fits]).toEqual([2, 0, true]);
  });

  it('drops records settled more than a day ago', () => {
    const plan = compactionPlan([delivered('m_new', T0 + DAY)], [delivered('m_old', T0)], T0 + DAY + 1);
    expect(plan.settled.map((r) => r.id)).toEqual(['m_new']);
    expect(plan.dropped.map((r) => r.id)).toEqual(['m_old']);
  });

  it('evicts the oldest settled records for room, and refuses only what does not fit beside what waits', () => {
    // As stored: a 4 MiB text's first part, and its body pointer.
    const big = (r: InboxRecord): InboxRecord => ({
      ...r,
      text: 'b',
      body: { bytes: 4 * MIB, chars: 4 * MIB },
    });
    const settled = Array.from({ length: 6 }, (_, i) => big(delivered(`m_s${i}`, T0 + i)));
    const waiting = Array.from({ length: 2 }, (_, i) => big(record(`m_w${i}`, T0 + i)));
    const plan = compactionPlan(waiting, settled, T0 + 10, 4 * MIB);
    expect(plan.fits).toBe(true);
    // 2 waiting + 1 incoming + 4 settled records of 4 MiB (and their fields) are within 32 MiB; 5 are not.
    expect(plan.dropped.map((r) => r.id)).toEqual(['m_s0', 'm_s1']);
    expect(plan.settled.map((r) => r.id)).toEqual(['m_s2', 'm_s3', 'm_s4', 'm_s5']);
    const full = Array.from({ length: 8 }, (_, i) => big(record(`m_w${i}`, T0 + i)));
    const refused = compactionPlan(full, settled, T0 + 10, 4 * MIB);
    expect(refused.fits).toBe(false);
    expect(refused.waitingBytes).toBe(8 * (4 * MIB + RECORD_OVERHEAD_BYTES));
    expect(refused.waitingBytes + 4 * MIB).toBeGreaterThan(INBOX_MAX_BYTES);
    // With nothing incoming, what waits is never a reason not to move settled records out.
    expect(compactionPlan(full, settled, T0 + 10).fits).toBe(true);
  });

  it('keeps at most SETTLED_MAX_RECORDS settled records', () => {
    const settled = Array.from({ length: SETTLED_MAX_RECORDS + 3 }, (_, i) =>
      delivered(`m_${i}`, T0 + i, 'x'),
    );
    const plan = compactionPlan([], settled, T0 + SETTLED_MAX_RECORDS + 10);
    expect(plan.settled).toHaveLength(SETTLED_MAX_RECORDS);
    expect(plan.dropped.map((r) => r.id)).toEqual(['m_0', 'm_1', 'm_2']);
  });

  it('is due once enough settled records wait in the live file, or the oldest long enough', () => {
    const few = Array.from({ length: COMPACT_AT - 1 }, (_, i) => delivered(`m_${i}`, T0));
    expect(compactionDue([record('m_p', T0), ...few], T0 + 1)).toBe(false);
    expect(compactionDue([...few, delivered('m_x', T0)], T0 + 1)).toBe(true);
    expect(compactionDue([delivered('m_x', T0)], T0 + COMPACT_AFTER_MS)).toBe(true);
  });
});

describe('a sender named by a peer', () => {
  it('is cleaned and bounded field by field, with no terminal and no stray field', () => {
    const long = `x\x1b]0;pwned\x07\x1b[2J${'n'.repeat(30_000)}`;
    // As a loose read of a peer's record has it: a field this version does not know comes along.
    const sent = {
      pane: long,
      terminal: 'term_local',
      host: long,
      name: long,
      host_id: 'h_abcdefghijkl',
      extra: long,
    };
    const clean = senderFromPeer(sent, 'local');
    expect(clean).toEqual({
      pane: expect.stringMatching(/^xn+…$/),
      terminal: null,
      host: expect.stringMatching(/^xn+…$/),
      name: expect.stringMatching(/^xn+…$/),
      host_id: 'h_abcdefghijkl',
    });
    expect((clean.name as string).length).toBe(100);
  });

  it('never passes for this host, and keeps only an identity of its own form', () => {
    expect(
      senderFromPeer({ pane: ' ', terminal: null, host: 'local', name: null, host_id: '../x' }, 'local'),
    ).toEqual({ pane: null, terminal: null, host: 'a peer', name: null, host_id: null });
  });
});

describe('Stop blocks in a row', () => {
  it('leaves the last blocks before the harness cap to other hooks; 0 means no cap', () => {
    expect(stopBlockLimit(undefined)).toBe(6);
    expect(stopBlockLimit('12')).toBe(10);
    expect(stopBlockLimit('3')).toBe(1);
    expect(stopBlockLimit('1')).toBe(1);
    expect(stopBlockLimit('0')).toBe(Number.POSITIVE_INFINITY);
    expect(stopBlockLimit('many')).toBe(6);
  });

  it('starts a chain whenever stop_hook_active is false, and counts on while it is true', () => {
    expect(nextStopBlock(false, 5)).toBe(1);
    expect(nextStopBlock(true, undefined)).toBe(1);
    expect(nextStopBlock(true, 5)).toBe(6);
  });
});
