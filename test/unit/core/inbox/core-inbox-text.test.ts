import { describe, expect, it } from 'vitest';
import { pendingRecord } from '../../../../service/core/inbox/inbox.js';
import { storedText } from '../../../../service/core/inbox/inbox-space.js';
import {
  BATCH_CHARS,
  batchBudget,
  batchText,
  deliveryEntry,
  displayLines,
  FOLD_LINES,
  PREVIEW_CHARS,
  pickDelivery,
  previewText,
  senderLabel,
  ticketNoticeText,
  undeliveredText,
} from '../../../../service/core/inbox/inbox-text.js';
import type { InboxRecord } from '../../../../service/core/inbox/inbox-types.js';
import type { Ticket } from '../../../../service/core/placement/queue-types.js';
import { clip } from '../../../../service/core/text/clean.js';

const T0 = 1_700_000_000_000;
const ESCAPES = '\x1b[31mred\x1b[0m \x1b]0;title\x07 \x9b2J\x1bP+q\x1b\\ bell\x07 cr\r';

function record(text: string, over: Partial<InboxRecord> = {}): InboxRecord {
  return {
    ...pendingRecord(
      {
        id: 'm_1',
        kind: 'message',
        sender: { pane: 'w1:p3', terminal: 'term_a', host: 'local', name: 'reviewer' },
        text,
      },
      T0,
    ),
    ...over,
  };
}

function hasControl(text: string): boolean {
  return /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text);
}

describe('the delivery form', () => {
  it('names the kind, the sender and the age, and strips every escape from the text', () => {
    const entry = deliveryEntry(record(`Also cover the empty case. ${ESCAPES}`), T0 + 120_000);
    expect(entry.split('\n')[0]).toBe('[message from reviewer (w1:p3), 2m ago]');
    expect(entry).toContain('Also cover the empty case. red');
    expect(hasControl(entry)).toBe(false);
  });

  it('delivers a 1 MB message as a bounded preview that points to inbox list', () => {
    const huge = `${'line of text '.repeat(80_000)}\x1b[2J`;
    const stored = record('', storedText(huge));
    const preview = previewText(stored);
    expect(preview.length).toBeLessThan(PREVIEW_CHARS + 120);
    expect(preview).toContain(
      `\n… ${huge.length - 4 - 1} characters in all; read the whole message with: dogsled inbox list`,
    );
    // Stored whole by an older dogsled: cut before it is cleaned, counted raw.
    expect(previewText(record(huge))).toContain(`… ${huge.length} characters in all`);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'a'.repeat(PREVIEW_CHARS - 1)}😀${'b'.repeat(50)}`;
    const cut = previewText(record(text)).split('\n')[0] as string;
    expect(cut.endsWith('a')).toBe(true);
    expect(clip(`ab😀cd`, 4)).toBe('ab…');
  });

  it('fills a delivery as far as the cap allows, counting every entry as delivered', () => {
    const records = Array.from({ length: 9 }, (_, i) =>
      record('x'.repeat(PREVIEW_CHARS), { id: `m_${i}`, created_ms: T0 + i }),
    );
    const { batch, left } = pickDelivery(records, T0);
    expect([batch.length, left]).toEqual([4, 5]);
    const text = batchText(batch, T0, left);
    expect(text.length).toBeLessThanOrEqual(BATCH_CHARS);
    expect(text.length + deliveryEntry(records[4] as InboxRecord, T0).length).toBeGreaterThan(
      BATCH_CHARS - 200,
    );
    expect(text).toMatch(/^dogsled inbox: 4 new records/);
    expect(text).toMatch(/5 more wait for your next prompt or stop: dogsled inbox list\)$/);
  });

  it('counts the sender in a batch, and leaves room for every other piece of the answer', () => {
    const long = 'n'.repeat(30_000);
    const hostile = record('short', { sender: { pane: long, terminal: null, host: long, name: long } });
    const entry = deliveryEntry(hostile, T0);
    expect(entry.length).toBeLessThan(400);
    const records = Array.from({ length: 9 }, (_, i) => ({
      ...hostile,
      id: `m_${i}`,
      text: 'y'.repeat(1_500),
    }));
    const reminder = 'r'.repeat(5_000);
    const { batch, left } = pickDelivery(records, T0, batchBudget([reminder]));
    expect(batch.length).toBeGreaterThan(0);
    expect(batchText(batch, T0, left).length + 2 + reminder.length).toBeLessThanOrEqual(BATCH_CHARS);
    expect(pickDelivery(records, T0, batchBudget(['r'.repeat(BATCH_CHARS)])).batch).toEqual([]);
  });

  it('labels the service, a nameless pane and a peer sender', () => {
    expect(senderLabel({ pane: null, terminal: null, host: 'local', name: null })).toBe('dogsled');
    expect(senderLabel({ pane: 'w2:p1', terminal: 't', host: 'local', name: null })).toBe('w2:p1');
    expect(senderLabel({ pane: 'w2:p1', terminal: 't', host: 'netcup', name: 'x\x1b[2Jy' })).toBe(
      'xy (w2:p1) on netcup',
    );
  });

  it('bounds every field of a stored sender, however long', () => {
    const long = `a\x1b]0;t\x07${'b'.repeat(30_000)}`;
    const label = senderLabel({ pane: long, terminal: null, host: long, name: long });
    expect(label.length).toBeLessThan(3 * 100 + 20);
    expect(hasControl(label)).toBe(false);
  });
});

describe('the display form', () => {
  it('folds past twelve lines and cuts long lines, escape-free', () => {
    const text = Array.from({ length: 20 }, (_, i) => `line ${i} ${ESCAPES}`).join('\n');
    const lines = displayLines(record(text), T0 + 5_000);
    expect(lines[0]).toBe('m_1  message from reviewer (w1:p3), 5s ago · pending');
    expect(lines).toHaveLength(1 + FOLD_LINES + 1);
    expect(lines.at(-1)).toBe('  … 8 more lines');
    expect(lines.some(hasControl)).toBe(false);
    const long = displayLines(record('z'.repeat(1_000_000)), T0);
    expect(long).toHaveLength(2);
    expect((long[1] as string).length).toBeLessThanOrEqual(202);
  });

  it('shows a claim attempt and a failure reason', () => {
    expect(displayLines(record('hi', { state: 'claimed', attempts: 2 }), T0)[0]).toMatch(
      /· claimed \(attempt 2\)$/,
    );
    expect(displayLines(record('hi', { state: 'failed', reason: 'gone\x1b[1m' }), T0)[0]).toMatch(
      /· failed: gone$/,
    );
  });
});

describe('notices', () => {
  it('tells a sender what did not arrive, with a short escape-free quote', () => {
    const text = undeliveredText(
      record(`please ${ESCAPES} ${'q'.repeat(500)}`),
      'w1:p2',
      'its terminal is gone',
    );
    expect(text).toMatch(
      /^Your message m_1 to w1:p2 was not delivered: its terminal is gone\. It said: please red/,
    );
    expect(text.length).toBeLessThan(320);
    expect(hasControl(text)).toBe(false);
  });

  it('tells an owner its ticket was admitted or failed', () => {
    const ticket = {
      id: 't_1',
      kind: 'job',
      state: 'admitted',
      host: 'local',
      job: 'j_1',
      error: null,
      request: {
        command: ['sh', '-c', 'make test'],
        cwd: '/',
        timeout_ms: null,
        idle_timeout_ms: null,
        caller_workspace: null,
      },
    } as unknown as Ticket;
    expect(ticketNoticeText(ticket)).toBe("Ticket t_1 (job sh -c 'make test') was admitted on local as j_1.");
    expect(ticketNoticeText({ ...ticket, state: 'failed', error: 'launch failed: boom\x1b[2J' })).toBe(
      "Ticket t_1 (job sh -c 'make test') failed: launch failed: boom. Nothing was started elsewhere.",
    );
  });
});
