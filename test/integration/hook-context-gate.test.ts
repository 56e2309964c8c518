// `hook context` and the stop gate from the command line: the owner's own work leads, the fleet
// lines of `status --brief` follow, in each harness's form; the gate reminds an owner of finished
// children with work to land once per distinct set, across processes, and forgets once the owner
// has no open items. Both add nothing without a Herdr pane or a snapshot.

import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentPane } from '../../service/state/schemas.js';
import { updateItems } from '../../service/state/work.js';
import { hookJson, type InboxBox, inboxBox, type PaneRef } from '../helpers/inbox-fixture.js';
import { snapshotFixture, writeSnapshot } from '../helpers/snapshot.js';
import { appendItems, appendTickets, itemFixture, ticketFixture, workIO } from './job-queue-fixtures.js';

let t: InboxBox;
let lead: PaneRef;

beforeEach(async () => {
  t = await inboxBox();
  lead = await t.newPane();
});

afterEach(async () => {
  await t.close();
});

function childPane(over: Partial<AgentPane> = {}): AgentPane {
  return {
    pane: 'w7:p1',
    agent: 'claude',
    state: 'idle',
    name: 'child-a',
    transcript: null,
    transcript_modified: null,
    terminal_id: 'term_child',
    completion_seq: 3,
    cwd: '/work/child',
    model: null,
    activity: null,
    branch: 'feat/child-a',
    ahead: 2,
    dirty: false,
    landed: false,
    stalled_since_ms: null,
    state_since_ms: Date.now() - 60_000,
    ...over,
  };
}

async function snapshotWith(panes: AgentPane[]): Promise<void> {
  const snapshot = snapshotFixture({ sample_ms: Date.now() });
  snapshot.probe.agent_panes = panes;
  await writeSnapshot(t.box.state, snapshot);
}

const childItem = () =>
  itemFixture({ id: 'i_child', kind: 'agent', owner: lead.pane, terminal_id: 'term_child', pane: 'w7:p1' });

describe('hook context', () => {
  it("leads with the caller's own work, then the fleet, as Claude Code context", async () => {
    await snapshotWith([]);
    await appendItems(t.box, [
      itemFixture({ id: 'i_job', job: 'j_abc', owner: lead.pane, command: ['make', 'test\x1b[2J'] }),
      itemFixture({ id: 'i_other', job: 'j_zzz', owner: 'w9:p9' }),
    ]);
    await appendTickets(t.box, [ticketFixture({ id: 't_wait', owner: lead.pane })]);
    const result = await t.hook(lead, ['context', '--harness', 'claude'], {
      hook_event_name: 'UserPromptSubmit',
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const { hookEventName, additionalContext } = hookJson(result).hookSpecificOutput;
    expect(hookEventName).toBe('UserPromptSubmit');
    const lines = (additionalContext as string).split('\n');
    expect(lines[0]).toMatch(/^Your work: 1 running · 1 queued · details: dogsled items/);
    expect(lines[1]).toMatch(/^Running: job j_abc make test running \d+(ms|s)$/);
    expect(lines[2]).toMatch(/^Queued: t_wait true queued \d+(ms|s)$/);
    expect(lines[3]).toMatch(/^local \d+\/8 \S* ?· mem /);
    expect(lines.at(-1)).toBe('2 open items · 1 pending ticket · details: dogsled status');
    expect(additionalContext).not.toContain('j_zzz');
    expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(additionalContext)).toBe(false);
  });

  it('gives Pi plain text, and SessionStart its own event name (registering the reader)', async () => {
    await snapshotWith([]);
    const pi = await t.hook(lead, ['context', '--harness', 'pi']);
    expect(pi.stdout).toMatch(/^local \d+\/8 \S* ?· mem .*\ndetails: dogsled status\n$/);
    const start = hookJson(await t.hook(lead, ['context', '--harness', 'codex', '--event', 'SessionStart']));
    expect(start.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect((await t.inbox(lead)).reader.harness).toBe('codex');
  });

  it('adds nothing without a snapshot or outside a Herdr pane', async () => {
    expect(await t.hook(lead, ['context', '--harness', 'claude'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
    await snapshotWith([]);
    const outside = await t.hook(lead, ['context', '--harness', 'claude'], {}, { HERDR_ENV: '' });
    expect(outside).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });
});

describe('the stop gate', () => {
  it('reminds once per distinct set across processes, and again when the child gains a commit', async () => {
    await snapshotWith([childPane()]);
    await appendItems(t.box, [childItem()]);
    const first = await t.hook(lead, ['gate']);
    expect(first.stdout).toMatch(
      /^Before you stop: 1 finished child has work to land\.\n- child-a: branch feat\/child-a, 2 commits to land\n/,
    );
    expect((await t.hook(lead, ['gate'])).stdout).toBe('');
    await snapshotWith([childPane({ state: 'done' })]);
    expect((await t.hook(lead, ['gate'])).stdout).toBe('');
    await snapshotWith([childPane({ ahead: 3 })]);
    expect((await t.hook(lead, ['gate'])).stdout).toContain('3 commits to land');
    const gate = JSON.parse(await readFile(join(t.box.state, 'gate.json'), 'utf8'));
    expect(gate.owners[lead.pane].sets).toEqual(['i_child:2:clean', 'i_child:3:clean']);
  });

  it('rides in the Stop inbox response, and is silent for working or clean children', async () => {
    await snapshotWith([childPane({ state: 'working' })]);
    await appendItems(t.box, [childItem()]);
    const stop = ['inbox', '--harness', 'claude', '--event', 'Stop'];
    expect((await t.hook(lead, stop, { stop_hook_active: false })).stdout).toBe('');
    await snapshotWith([childPane({ ahead: 0, dirty: false })]);
    expect((await t.hook(lead, stop, { stop_hook_active: false })).stdout).toBe('');
    await snapshotWith([childPane({ dirty: true })]);
    const block = hookJson(await t.hook(lead, stop, { stop_hook_active: false }));
    expect(block.decision).toBe('block');
    expect(block.reason).toContain('- child-a: branch feat/child-a, 2 commits to land, uncommitted changes');
    expect((await t.hook(lead, stop, { stop_hook_active: true })).stdout).toBe('');
  });

  it('forgets an owner once it has no open items, so the same set later reminds again', async () => {
    await snapshotWith([childPane()]);
    await appendItems(t.box, [childItem()]);
    expect((await t.hook(lead, ['gate'])).stdout).not.toBe('');
    await updateItems(workIO(t.box), (items) => ({
      result: undefined,
      next: {
        ...items,
        items: items.items.map((i) => ({ ...i, closed_ms: Date.now(), close_reason: 'done' })),
      },
    }));
    expect((await t.hook(lead, ['gate'])).stdout).toBe('');
    expect(JSON.parse(await readFile(join(t.box.state, 'gate.json'), 'utf8')).owners).toEqual({});
    await appendItems(t.box, [{ ...childItem(), id: 'i_child' }]);
    expect((await t.hook(lead, ['gate'])).stdout).toContain('child-a');
  });

  it('is silent when gate.json is a directory or garbage', async () => {
    await snapshotWith([childPane()]);
    await appendItems(t.box, [childItem()]);
    await mkdir(join(t.box.state, 'gate.json'));
    expect(await t.hook(lead, ['gate'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await rm(join(t.box.state, 'gate.json'), { recursive: true });
    await writeFile(join(t.box.state, 'gate.json'), '\x1b[2J{not json');
    const after = await t.hook(lead, ['gate']);
    expect(after).toMatchObject({ code: 0, stderr: '' });
    expect(after.stdout).toContain('child-a');
  });
});
