import { describe, expect, it } from 'vitest';
import { pendingRecord } from '../../service/core/inbox.js';
import {
  BATCH_CHARS,
  batchText,
  deliveryEntry,
  deliverySizeBound,
  displayLines,
  FOLD_LINES,
  PREVIEW_CHARS,
  previewText,
  senderLabel,
  ticketNoticeText,
  undeliveredText,
} from '../../service/core/inbox-text.js';
import { clipText } from '../../service/core/text-clean.js';
import type { InboxRecord } from '../../service/state/inbox-schemas.js';
import type { Ticket } from '../../service/state/work-schemas.js';

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
    const huge = `${'line of text '.repeat(80_000)}`;
    const preview = previewText(huge);
    expect(preview.length).toBeLessThan(PREVIEW_CHARS + 120);
    expect(preview).toContain('characters in all; read the whole message with: dogsled inbox list');
    expect(deliverySizeBound(record(huge))).toBeGreaterThanOrEqual(deliveryEntry(record(huge), T0).length);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'a'.repeat(PREVIEW_CHARS - 1)}😀${'b'.repeat(50)}`;
    const cut = previewText(text).split('\n')[0] as string;
    expect(cut.endsWith('a')).toBe(true);
    expect(clipText(`ab😀cd`, 4)).toBe('ab…');
  });

  it('keeps a batch of many full records under the batch size with its header', () => {
    const records = Array.from({ length: 3 }, (_, i) => record('x'.repeat(PREVIEW_CHARS), { id: `m_${i}` }));
    const text = batchText(records, T0, 2);
    expect(text.length).toBeLessThan(BATCH_CHARS);
    expect(text).toMatch(/^dogsled inbox: 3 new records/);
    expect(text).toMatch(/2 more wait for your next prompt or stop: dogsled inbox list\)$/);
  });

  it('labels the service, a nameless pane and a peer sender', () => {
    expect(senderLabel({ pane: null, terminal: null, host: 'local', name: null })).toBe('dogsled');
    expect(senderLabel({ pane: 'w2:p1', terminal: 't', host: 'local', name: null })).toBe('w2:p1');
    expect(senderLabel({ pane: 'w2:p1', terminal: 't', host: 'netcup', name: 'x\x1b[2Jy' })).toBe(
      'xy (w2:p1) on netcup',
    );
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
