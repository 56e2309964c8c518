// `hook context` and the stop gate from the command line: the owner's own work leads, the fleet
// lines of `status --brief` follow, in each harness's form; the gate reminds an owner of finished
// children with work to land (from items and branch observations: a child closed by `done`
// included) once per distinct set, across processes, and forgets once the owner has no open items
// and nothing to land. Both add nothing without a Herdr pane or a snapshot.

import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentPane } from '../../../service/core/agents/agent-pane-types.js';
import type { Item } from '../../../service/core/agents/item-types.js';
import { BATCH_CHARS } from '../../../service/core/inbox/inbox-text.js';
import { updateItems } from '../../../service/state/records/queue-items.js';
import { hookJson, type InboxBox, inboxBox, type PaneRef } from '../../helpers/inbox-fixture.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import {
  appendItems,
  appendTickets,
  itemFixture,
  ticketFixture,
  workIO,
} from '../jobs/job-queue-fixtures.js';

let t: InboxBox;
let lead: PaneRef;

beforeEach(async () => {
  t = await inboxBox();
  lead = await t.newPane();
});

afterEach(async () => {
  await t.close();
});

/** branches.json as the service's branch watch writes it. */
async function observe(over: Record<string, unknown> = {}, items = ['i_child']): Promise<void> {
  const branches = items.map((item) => ({
    item,
    child: 'child-a',
    host: 'local',
    repository: '/work/repo',
    branch: 'feat/child-a',
    ahead: 2,
    dirty: false,
    landed: false,
    observed_ms: Date.now(),
    ...over,
  }));
  await writeFile(join(t.box.state, 'branches.json'), JSON.stringify({ version: 1, branches }));
}

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

const childItem = (over: Partial<Item> = {}) =>
  itemFixture({
    id: 'i_child',
    kind: 'agent',
    owner: lead.pane,
    terminal_id: 'term_child',
    pane: 'w7:p1',
    job: null,
    command: undefined,
    name: 'child-a',
    branch: 'feat/child-a',
    repository: '/work/repo',
    ...over,
  });

/** The child as `dogsled done` leaves it: closed, its pane gone, its branch kept. */
const doneChild = () => childItem({ closed_ms: Date.now(), close_reason: 'done' });

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
    await observe();
    const first = await t.hook(lead, ['gate']);
    expect(first.stdout).toMatch(
      /^Before you stop: 1 finished child has work to land\.\n- child-a: branch feat\/child-a, 2 commits to land\n/,
    );
    expect((await t.hook(lead, ['gate'])).stdout).toBe('');
    await snapshotWith([childPane({ state: 'done' })]);
    expect((await t.hook(lead, ['gate'])).stdout).toBe('');
    await observe({ ahead: 3 });
    expect((await t.hook(lead, ['gate'])).stdout).toContain('3 commits to land');
    const gate = JSON.parse(await readFile(join(t.box.state, 'gate.json'), 'utf8'));
    expect(gate.owners[lead.pane].sets).toEqual(['i_child:2:clean', 'i_child:3:clean']);
  });

  it('rides in the Stop inbox response, and is silent for working or clean children', async () => {
    await snapshotWith([childPane({ state: 'working' })]);
    await appendItems(t.box, [childItem()]);
    await observe();
    const stop = ['inbox', '--harness', 'claude', '--event', 'Stop'];
    expect((await t.hook(lead, stop, { stop_hook_active: false })).stdout).toBe('');
    await snapshotWith([childPane()]);
    await observe({ ahead: 0 });
    expect((await t.hook(lead, stop, { stop_hook_active: false })).stdout).toBe('');
    await observe({ dirty: true });
    const block = hookJson(await t.hook(lead, stop, { stop_hook_active: false }));
    expect(block.decision).toBe('block');
    expect(block.reason).toContain('- child-a: branch feat/child-a, 2 commits to land, uncommitted changes');
    expect((await t.hook(lead, stop, { stop_hook_active: true })).stdout).toBe('');
  });

  it('reminds of a child that finished with done (closed, no pane), in the Stop response, the gate and context', async () => {
    await snapshotWith([]);
    await appendItems(t.box, [doneChild()]);
    await observe({ ahead: 1 });
    const context = hookJson(await t.hook(lead, ['context', '--harness', 'claude']));
    const lines = (context.hookSpecificOutput.additionalContext as string).split('\n');
    expect(lines[0]).toMatch(/^Your work: 1 to land · details/);
    expect(lines[1]).toBe('To land: child-a (branch feat/child-a +1)');
    const stop = ['inbox', '--harness', 'claude', '--event', 'Stop'];
    const block = hookJson(await t.hook(lead, stop, { stop_hook_active: false }));
    expect(block).toMatchObject({ decision: 'block' });
    expect(block.reason).toContain('Before you stop: 1 finished child has work to land.');
    expect(block.reason).toContain('- child-a: branch feat/child-a, 1 commit to land');
    // The same set again, by either hook, across processes: nothing.
    expect((await t.hook(lead, stop, { stop_hook_active: false })).stdout).toBe('');
    expect((await t.hook(lead, ['gate'])).stdout).toBe('');
    const gate = JSON.parse(await readFile(join(t.box.state, 'gate.json'), 'utf8'));
    expect(gate.owners[lead.pane].sets).toEqual(['i_child:1:clean']);
    // Integrated or deleted: the row leaves everywhere, and with nothing open the history goes.
    await observe({ ahead: 0, landed: true });
    expect((await t.hook(lead, ['gate'])).stdout).toBe('');
    expect(JSON.parse(await readFile(join(t.box.state, 'gate.json'), 'utf8')).owners).toEqual({});
    const after = hookJson(await t.hook(lead, ['context', '--harness', 'claude']));
    expect(after.hookSpecificOutput.additionalContext).not.toContain('To land');
  });

  it("does not repeat a reminder when the reminded child closes with done; a peer's child names its host", async () => {
    await snapshotWith([childPane()]);
    await appendItems(t.box, [childItem()]);
    await observe();
    expect((await t.hook(lead, ['gate'])).stdout).toContain('child-a');
    await updateItems(workIO(t.box), (items) => ({
      result: undefined,
      next: {
        ...items,
        items: items.items.map((i) => ({ ...i, closed_ms: Date.now(), close_reason: 'done' })),
      },
    }));
    await snapshotWith([]);
    expect((await t.hook(lead, ['gate'])).stdout).toBe('');
    // A child on a peer: its branch as the peer forwarded it onto the owner's item.
    const seen = { ahead: 4, dirty: false, landed: false, observed_ms: Date.now() };
    await appendItems(t.box, [
      childItem({
        id: 'i_far',
        host: 'netcup',
        name: 'far\x1b[2J',
        closed_ms: Date.now(),
        branch_seen: seen,
      }),
    ]);
    const far = await t.hook(lead, ['gate']);
    expect(far.stdout).toContain('- far on netcup: branch feat/child-a, 4 commits to land');
    expect(far.stdout).toContain('- child-a: branch feat/child-a, 2 commits to land');
    expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(far.stdout)).toBe(false);
  });

  it('forgets an owner once it has no open items and nothing to land, so the same set later reminds again', async () => {
    await snapshotWith([childPane()]);
    await appendItems(t.box, [childItem()]);
    await observe();
    expect((await t.hook(lead, ['gate'])).stdout).not.toBe('');
    await updateItems(workIO(t.box), (items) => ({
      result: undefined,
      next: {
        ...items,
        items: items.items.map((i) => ({ ...i, closed_ms: Date.now(), close_reason: 'done' })),
      },
    }));
    await observe({ ahead: 0, landed: true });
    expect((await t.hook(lead, ['gate'])).stdout).toBe('');
    expect(JSON.parse(await readFile(join(t.box.state, 'gate.json'), 'utf8')).owners).toEqual({});
    await appendItems(t.box, [{ ...childItem(), id: 'i_child' }]);
    await observe();
    expect((await t.hook(lead, ['gate'])).stdout).toContain('child-a');
  });

  it("counts the reminder toward the Stop response's size; what does not fit comes at the next stop", async () => {
    await snapshotWith([]);
    const ids = Array.from({ length: 10 }, (_, i) => `i_child${i}`);
    await appendItems(
      t.box,
      ids.map((id, i) => ({ ...doneChild(), id, name: `child-${i}-${'n'.repeat(40)}` })),
    );
    await observe({}, ids);
    await t.register(lead);
    const other = await t.newPane();
    // Records that fill a whole batch on their own: with the reminder beside them they would not fit.
    // Written by the send action in this process (the hooks below are what is under test).
    for (let i = 0; i < 4; i++) await t.send(other, lead.pane, `${i}${'x'.repeat(2999)}`);
    const stop = ['inbox', '--harness', 'claude', '--event', 'Stop'];
    const first = hookJson(await t.hook(lead, stop, { stop_hook_active: false }));
    expect(first.reason).toContain('Before you stop: 10 finished children have work to land.');
    expect(first.reason.length).toBeLessThanOrEqual(BATCH_CHARS);
    expect(first.reason).toContain('more wait for your next prompt or stop');
    const second = hookJson(await t.hook(lead, stop, { stop_hook_active: false }));
    expect(second.reason).not.toContain('Before you stop');
    const delivered = (await t.inbox(lead)).records.filter((r: { state: string }) => r.state === 'delivered');
    expect(delivered).toHaveLength(4);
  });

  it('is silent when gate.json is a directory or garbage', async () => {
    await snapshotWith([childPane()]);
    await appendItems(t.box, [childItem()]);
    await observe();
    await mkdir(join(t.box.state, 'gate.json'));
    expect(await t.hook(lead, ['gate'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await rm(join(t.box.state, 'gate.json'), { recursive: true });
    await writeFile(join(t.box.state, 'gate.json'), '\x1b[2J{not json');
    const after = await t.hook(lead, ['gate']);
    expect(after).toMatchObject({ code: 0, stderr: '' });
    expect(after.stdout).toContain('child-a');
  });

  it('with branches.json a directory: the gate is silent, the inbox batch still goes out, context still comes', async () => {
    await snapshotWith([]);
    await appendItems(t.box, [doneChild()]);
    await mkdir(join(t.box.state, 'branches.json'));
    expect(await t.hook(lead, ['gate'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await t.register(lead);
    const other = await t.newPane();
    await t.send(other, lead.pane, 'hello');
    const stop = hookJson(await t.hook(lead, ['inbox', '--harness', 'claude', '--event', 'Stop']));
    expect(stop.reason).toContain('hello');
    expect(stop.reason).not.toContain('Before you stop');
    const context = hookJson(await t.hook(lead, ['context', '--harness', 'claude']));
    expect(context.hookSpecificOutput.additionalContext).not.toContain('To land');
  });
});
