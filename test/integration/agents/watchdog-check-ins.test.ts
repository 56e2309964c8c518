// The watchdog on real files and the fake Herdr: check-ins reach only idle or done owners with a
// reader, are due on a stall, a completed job or 30 quiet minutes, are posted once (also across a
// restart and a crash between deciding and posting), and carry escape-free, bounded notes.

import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { type InboxBox, inboxPair, type PaneRef } from '../../helpers/inbox-fixture.js';
import { waitFor } from '../../helpers/wait.js';
import {
  agentPane,
  checkIns,
  childItem,
  freshState,
  MIN,
  T0,
  watchdog,
  watchdogFile,
  writeEndedJob,
  writeItems,
  writePanes,
} from './watchdog-fixtures.js';

let t: InboxBox;
let lead: PaneRef;
let child: PaneRef;

// One fake Herdr and pair of panes for the file; each test its own state dir.
beforeAll(async () => {
  ({ t, lead, child } = await inboxPair());
});

beforeEach(async () => {
  await freshState(t);
});

afterAll(async () => {
  await t?.close();
});

/** The owner idle with a reader, one working child, nothing else: the usual start. */
async function ownerWithChild(ownerState = 'idle'): Promise<void> {
  await t.register(lead);
  await writeItems(t, [childItem(lead, child)]);
  await writePanes(t, [
    agentPane(lead, { state: ownerState }),
    agentPane(child, {
      state: 'working',
      name: 'reviewer',
      activity: { at_ms: T0, kind: 'tool_call', text: 'Bash: npm test' },
    }),
  ]);
}

describe('the watchdog', () => {
  it('checks in with an idle owner 30 minutes after the last lifecycle event, once, and not again after a restart', async () => {
    await ownerWithChild();
    await watchdog(t, () => T0).pass();
    expect((await watchdog(t, () => T0 + 29 * MIN).pass()).checkIns).toEqual([]);
    const pass = await watchdog(t, () => T0 + 30 * MIN).pass();
    expect(pass.checkIns.map((c) => c.owner)).toEqual([lead.pane]);
    const posted = await checkIns(t, lead);
    expect(posted).toHaveLength(1);
    expect(posted[0]?.text).toContain(`- reviewer (${child.pane}) on local: working 30m`);
    expect(posted[0]?.text).toContain('    | tool_call: Bash: npm test');
    // The same worker a minute later, and a restarted one: nothing new.
    expect((await watchdog(t, () => T0 + 31 * MIN).pass()).checkIns).toEqual([]);
    expect(await checkIns(t, lead)).toHaveLength(1);
    expect((await watchdog(t, () => T0 + 59 * MIN).pass()).checkIns).toEqual([]);
    expect((await watchdog(t, () => T0 + 60 * MIN).pass()).checkIns).toHaveLength(1);
  });

  it('names each child as its owner named it, not by its pane, also when Herdr shows no name or no pane', async () => {
    await t.register(lead);
    await writeItems(t, [
      childItem(lead, child, { name: 'hang1' }),
      childItem(lead, { pane: 'w9:p9', terminal: 'term_gone' }, { id: 'i_gone', name: 'lost2\x1b[2J' }),
    ]);
    await writePanes(t, [
      agentPane(lead),
      agentPane(child, { state: 'working', name: null, stalled_since_ms: T0 - MIN }),
    ]);
    const [note] = (await watchdog(t, () => T0).pass()).checkIns;
    expect(note?.text).toContain(`- hang1 (${child.pane}) on local: working`);
    expect(note?.text).toContain('- lost2 on local: not seen');
    expect(note?.text).not.toContain(`- ${child.pane} on local`);
  });

  it('never checks in with a working or blocked owner; the check-in stays due until it is idle', async () => {
    await ownerWithChild('working');
    await watchdog(t, () => T0).pass();
    expect((await watchdog(t, () => T0 + 45 * MIN).pass()).checkIns).toEqual([]);
    await writePanes(t, [agentPane(lead, { state: 'blocked' }), agentPane(child, { state: 'working' })]);
    expect((await watchdog(t, () => T0 + 46 * MIN).pass()).checkIns).toEqual([]);
    await writePanes(t, [agentPane(lead, { state: 'done' }), agentPane(child, { state: 'working' })]);
    expect((await watchdog(t, () => T0 + 47 * MIN).pass()).checkIns).toHaveLength(1);
    expect(await checkIns(t, lead)).toHaveLength(1);
  });

  it('sends nothing to an owner without an inbox reader; the check-in stays due until one registers', async () => {
    await writeItems(t, [childItem(lead, child)]);
    await writePanes(t, [agentPane(lead), agentPane(child, { state: 'working' })]);
    await watchdog(t, () => T0).pass();
    expect((await watchdog(t, () => T0 + 40 * MIN).pass()).checkIns).toEqual([]);
    expect(await t.inbox(lead)).toBeUndefined();
    await t.register(lead);
    expect((await watchdog(t, () => T0 + 41 * MIN).pass()).checkIns).toHaveLength(1);
  });

  it('checks in at once on a stall, once per stall episode, and transcript writes do not postpone it', async () => {
    await ownerWithChild();
    await watchdog(t, () => T0).pass();
    await writePanes(t, [
      agentPane(lead),
      agentPane(child, { state: 'working', stalled_since_ms: T0 + 10 * MIN, transcript_modified: T0 }),
    ]);
    const first = await watchdog(t, () => T0 + 11 * MIN).pass();
    expect(first.checkIns).toHaveLength(1);
    expect(first.checkIns[0]?.text).toMatch(/a child stalled[\s\S]*STALLED 60s/);
    expect((await watchdog(t, () => T0 + 12 * MIN).pass()).checkIns).toEqual([]);
    // Recovered by a transcript write, stalled again later: a new episode.
    await writePanes(t, [
      agentPane(lead),
      agentPane(child, {
        state: 'working',
        stalled_since_ms: T0 + 25 * MIN,
        transcript_modified: T0 + 15 * MIN,
      }),
    ]);
    expect((await watchdog(t, () => T0 + 26 * MIN).pass()).checkIns).toHaveLength(1);
    // Only transcript writes since: the regular check-in still comes 30 minutes after the last one.
    await writePanes(t, [
      agentPane(lead),
      agentPane(child, { state: 'working', transcript_modified: T0 + 55 * MIN, state_since_ms: T0 }),
    ]);
    expect((await watchdog(t, () => T0 + 55 * MIN).pass()).checkIns).toEqual([]);
    expect((await watchdog(t, () => T0 + 56 * MIN).pass()).checkIns).toHaveLength(1);
    expect(await checkIns(t, lead)).toHaveLength(3);
  });

  it('tells the owner of a completed job with its last five log lines, escapes stripped, after its item closed', async () => {
    await t.register(lead);
    await writeItems(t, []);
    await writePanes(t, [agentPane(lead)]);
    await watchdog(t, () => T0).pass();
    const log = [
      'one',
      'two',
      'three',
      'four',
      'five \u001b]0;pwned\u0007',
      'six \u001b[31mred\u001b[0m',
      '',
    ].join('\n');
    await writeEndedJob(t, lead, 'j_done', T0 + MIN, log);
    const pass = await watchdog(t, () => T0 + 2 * MIN).pass();
    expect(pass.events).toEqual(['j_done']);
    expect(pass.checkIns).toHaveLength(1);
    const text = (await checkIns(t, lead))[0]?.text ?? '';
    expect(text).toContain('- job j_done (npm test) exited 1 60s ago');
    expect(text).toContain('    | two\n    | three\n    | four\n    | five \n    | six red');
    expect(text).not.toContain('    | one');
    expect(text).not.toMatch(/\u001b|\u0007/);
    expect((await watchdogFile(t)).events.j_done.delivered_ms).toBe(T0 + 2 * MIN);
    expect((await watchdog(t, () => T0 + 3 * MIN).pass()).checkIns).toEqual([]);
  });

  it('keeps a completed job pending while the owner works, and delivers it when it is idle', async () => {
    await t.register(lead);
    await writePanes(t, [agentPane(lead, { state: 'working' })]);
    await watchdog(t, () => T0).pass();
    await writeEndedJob(t, lead, 'j_late', T0 + MIN, 'done\n');
    expect((await watchdog(t, () => T0 + 2 * MIN).pass()).checkIns).toEqual([]);
    expect((await watchdogFile(t)).events.j_late.delivered_ms).toBeNull();
    await writePanes(t, [agentPane(lead, { state: 'idle' })]);
    expect((await watchdog(t, () => T0 + 3 * MIN).pass()).checkIns).toHaveLength(1);
  });

  it('does not flood a first start with jobs that ended before the watchdog began', async () => {
    await t.register(lead);
    await writePanes(t, [agentPane(lead)]);
    await writeEndedJob(t, lead, 'j_old', T0 - MIN, 'old\n');
    const pass = await watchdog(t, () => T0).pass();
    expect(pass.events).toEqual([]);
    expect(pass.checkIns).toEqual([]);
  });

  it('re-posts a check-in decided before a crash with the same ref, and never posts it twice', async () => {
    await ownerWithChild();
    await watchdog(t, () => T0).pass();
    const state = await watchdogFile(t);
    const pending = {
      ref: 'check_in:c_crashed',
      terminal: lead.terminal,
      pane: lead.pane,
      text: 'decided before the crash',
      decided_ms: T0 + MIN,
      stalls: {},
      jobs: [],
    };
    state.owners[lead.pane] = { last_check_in_ms: null, last_event_ms: null, stalls: {}, pending };
    await writeFile(`${t.box.state}/watchdog.json`, JSON.stringify(state));
    const pass = await watchdog(t, () => T0 + 2 * MIN).pass();
    expect(pass.checkIns.map((c) => c.ref)).toEqual(['check_in:c_crashed']);
    // Crash after the post, before the mark: the pending record is back, the inbox holds it already.
    await writeFile(`${t.box.state}/watchdog.json`, JSON.stringify(state));
    await watchdog(t, () => T0 + 3 * MIN).pass();
    const posted = await checkIns(t, lead);
    expect(posted.map((r) => [r.ref, r.text])).toEqual([['check_in:c_crashed', 'decided before the crash']]);
    expect((await watchdogFile(t)).owners[lead.pane].pending).toBeNull();
  });

  it('quotes plain pane text, escapes stripped, for an agent whose transcript format is unknown', async () => {
    await t.register(lead);
    await writeItems(t, [childItem(lead, child)]);
    await writePanes(t, [
      agentPane(lead),
      agentPane(child, { state: 'working', transcript: null, transcript_modified: null }),
    ]);
    await t.herdr.call('pane.send_input', {
      pane_id: child.pane,
      text: "printf 'on screen \\033[31mred\\n'\n",
    });
    await waitFor(
      'the pane output',
      async () =>
        (
          await t.herdr.call('pane.read', { pane_id: child.pane, source: 'recent' })
        ).result.read.text.includes('on screen red')
          ? true
          : undefined,
      { timeoutMs: 10_000 },
    );
    await watchdog(t, () => T0).pass();
    const pass = await watchdog(t, () => T0 + 30 * MIN).pass();
    expect(pass.checkIns[0]?.text).toMatch(
      /recent activity \(untrusted output\):\n {4}\| screen: .*\n {4}\| on screen red\n/,
    );
    expect(pass.checkIns[0]?.text).not.toMatch(/\u001b/);
  });

  it('keeps its clock sane at the largest clock a test can set', async () => {
    await ownerWithChild();
    await watchdog(t, () => T0).pass();
    const far = Number.MAX_SAFE_INTEGER;
    const pass = await watchdog(t, () => far).pass();
    expect(pass.checkIns).toHaveLength(1);
    expect(pass.checkIns[0]?.text).toMatch(/working \d+d/);
    expect((await watchdogFile(t)).owners[lead.pane].last_check_in_ms).toBe(far);
  });
});
