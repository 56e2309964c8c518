// What a peer says about its sender is untrusted and unbounded: `host send` (as a peer's caller runs
// it, on the built CLI with the fake Herdr) keeps each sender field cleaned and bounded, and no
// field beyond the known ones; a delivery counts the sender in its size, so even records stored
// before the bound (any length) make a Stop reason under Claude Code's 10,000 characters.

import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  hookJson,
  type InboxBox,
  inboxPair,
  type PaneRef,
  registerClaude,
} from '../../helpers/inbox-fixture.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;

const STOP = ['inbox', '--harness', 'claude', '--event', 'Stop'];
const stop = { hook_event_name: 'Stop', stop_hook_active: false };
const HOSTILE = `\x1b]0;pwned\x07\x1b[2J\u009b6n${'n'.repeat(30_000)}`;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

beforeEach(async () => {
  ({ t, lead, child } = await inboxPair());
  await registerClaude(t, child);
});

afterEach(async () => {
  await t.close();
});

describe("a peer's sender fields", () => {
  it('are cleaned and bounded by host send, and a hostile one makes a short, clean Stop reason', async () => {
    const sender = {
      pane: HOSTILE,
      terminal: child.terminal,
      host: HOSTILE,
      name: HOSTILE,
      host_id: 'h_abcdefghijkl',
      extra: HOSTILE,
    };
    const sent = await t.cli(lead, ['host', 'send', child.pane, 'message'], {
      input: JSON.stringify({ text: 'hello from a peer', sender }),
    });
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    const [record] = (await t.inbox(child)).records;
    expect(Object.keys(record.sender).sort()).toEqual(['host', 'host_id', 'name', 'pane', 'terminal']);
    expect(record.sender).toMatchObject({ terminal: null, host_id: 'h_abcdefghijkl' });
    for (const field of [record.sender.pane, record.sender.host, record.sender.name]) {
      expect(field.length).toBeLessThanOrEqual(100);
      expect(CONTROL.test(field)).toBe(false);
    }

    const reason = hookJson(await t.hook(child, STOP, stop)).reason as string;
    expect(reason.length).toBeLessThan(1_000);
    expect(CONTROL.test(reason)).toBe(false);
    expect(reason).toContain('hello from a peer');
  });

  it('never pass for this host', async () => {
    const sender = { pane: 'w9:p1', terminal: null, host: 'local', name: null };
    await t.cli(lead, ['host', 'send', child.pane, 'message'], {
      input: JSON.stringify({ text: 'hi', sender }),
    });
    expect((await t.inbox(child)).records[0].sender.host).toBe('a peer');
  });

  it('stored before the bound, still make batches under the cap', async () => {
    const inbox = await t.inbox(child);
    const now = Date.now();
    const records = Array.from({ length: 5 }, (_, i) => ({
      id: `m_peer${String(i).padStart(6, '0')}`,
      kind: 'message',
      sender: { pane: HOSTILE, terminal: null, host: HOSTILE, name: HOSTILE },
      text: `peer message ${i}`,
      created_ms: now - 1_000 + i,
      state: 'pending',
      attempts: 0,
      lease_until_ms: null,
      delivered_ms: null,
      failed_ms: null,
      reason: null,
      ref: null,
    }));
    await writeFile(t.inboxPath(child), JSON.stringify({ ...inbox, records }));
    const reason = hookJson(await t.hook(child, STOP, stop)).reason as string;
    expect(reason).toMatch(/^dogsled inbox: 5 new records/);
    expect(reason.length).toBeLessThan(10_000);
    expect(CONTROL.test(reason)).toBe(false);
  });
});
