// The Pi extension's own guard on what it injects: even a claim answer full of escapes and a
// megabyte of text (a misbehaving or older binary) becomes a bounded, escape-free message.

import { describe, expect, it } from 'vitest';
import { batchMessage, claimedRecords } from '../../../plugins/pi/src/message.js';

const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('claimedRecords and batchMessage', () => {
  it('strip escapes and bound a hostile claim answer', () => {
    const answer = {
      records: [
        {
          id: 'm_1',
          kind: '\x1b[31mtask',
          from: 'w1:p1\x9b2J',
          text: `\x1b]0;owned\x07\x1b[1mhello\x1b[0m\n${'y'.repeat(1_000_000)}`,
          created_ms: 0,
        },
        { id: 'm_2', text: 42, created_ms: 0 },
      ],
    };
    const records = claimedRecords(answer);
    expect(records.map((r) => r.id)).toEqual(['m_1']);
    expect(records[0]?.kind).toBe('task');
    const text = batchMessage(records, 1_000);
    expect(text).not.toMatch(RAW);
    expect(text.length).toBeLessThan(3_000);
    expect(text).toContain('[task from w1:p1, 1s ago]\nhello');
  });
});
