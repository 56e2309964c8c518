import { describe, expect, it } from 'vitest';
import type { Item } from '../../../../service/core/agents/item-types.js';
import {
  GATE_HISTORY_MAX,
  gateKey,
  gateReminder,
  gateStep,
} from '../../../../service/core/inbox/gate-rule.js';
import { isEmptyWork, type OwnerPaneFacts, ownerWork } from '../../../../service/core/inbox/owner-work.js';
import {
  type LandObservation,
  type LandRow,
  ownerToLand,
} from '../../../../service/core/inbox/to-land-rule.js';
import type { Ticket } from '../../../../service/core/placement/queue-types.js';

const T0 = 1_700_000_000_000;
const OWNER = 'w1:p1';

function agentItem(id: string, terminal: string, over: Partial<Item> = {}): Item {
  return {
    id,
    kind: 'agent',
    host: 'local',
    pane: null,
    terminal_id: terminal,
    owner: OWNER,
    created_ms: T0,
    closed_ms: null,
    close_reason: null,
    job: null,
    ticket: null,
    name: `child-${terminal}`,
    branch: `feat/${terminal}`,
    ...over,
  };
}

/** An agent pane of this host's snapshot (`host` names whose: pane ids repeat across hosts). */
function pane(
  terminal: string,
  over: Partial<OwnerPaneFacts & { host: string }> = {},
): OwnerPaneFacts & { host: string } {
  return {
    host: 'local',
    pane: `w2:${terminal}`,
    terminal_id: terminal,
    name: `child-${terminal}`,
    state: 'idle',
    stalled_since_ms: null,
    state_since_ms: T0,
    ...over,
  };
}

function seen(item: string, over: Partial<LandObservation> = {}): LandObservation {
  return {
    item,
    branch: `feat/${item.slice(2)}`,
    ahead: 2,
    dirty: false,
    landed: false,
    observed_ms: T0,
    ...over,
  };
}

describe('TO LAND rows (one rule for the board, the gate, the Stop response and context)', () => {
  it('name finished children with commits or changes, never working, clean, landed or foreign ones', () => {
    const items = [
      agentItem('i_a', 'ta'),
      agentItem('i_b', 'tb'),
      agentItem('i_c', 'tc'),
      agentItem('i_d', 'td'),
      agentItem('i_e', 'te'),
      agentItem('i_f', 'tf', { owner: 'w9:p9' }),
      agentItem('i_h', 'th', { branch: null }),
    ];
    const panes = [
      pane('ta'),
      pane('tb', { state: 'working' }),
      pane('tc'),
      pane('td'),
      pane('te', { state: 'done' }),
      pane('tf'),
      pane('th'),
    ];
    const observed = [
      seen('i_a'),
      seen('i_b'),
      seen('i_c', { ahead: 0 }),
      seen('i_d', { landed: true }),
      seen('i_e', { ahead: 0, dirty: true }),
      seen('i_f'),
      seen('i_h'),
    ];
    expect(ownerToLand(OWNER, items, observed, panes)).toEqual([
      {
        item: 'i_a',
        name: 'child-ta',
        host: 'local',
        branch: 'feat/a',
        ahead: 2,
        dirty: false,
        observed_ms: T0,
      },
      {
        item: 'i_e',
        name: 'child-te',
        host: 'local',
        branch: 'feat/e',
        ahead: 0,
        dirty: true,
        observed_ms: T0,
      },
    ]);
  });

  it('keep a closed child from its item and observation, without any live pane', () => {
    const closed = agentItem('i_done', 'tx', { closed_ms: T0 + 5, close_reason: 'done', host: 'netcup' });
    expect(ownerToLand(OWNER, [closed], [seen('i_done', { ahead: 1 })], [])).toEqual([
      expect.objectContaining({
        item: 'i_done',
        name: 'child-tx',
        host: 'netcup',
        branch: 'feat/done',
        ahead: 1,
      }),
    ]);
    // Integration or deletion (the branch watch says landed) removes the row; so does no observation.
    expect(ownerToLand(OWNER, [closed], [seen('i_done', { ahead: 0, landed: true })], [])).toEqual([]);
    expect(ownerToLand(OWNER, [closed], [], [])).toEqual([]);
  });

  it('do not count an open child that is not seen idle or done, and read the newest observation', () => {
    const open = agentItem('i_o', 'to');
    expect(ownerToLand(OWNER, [open], [seen('i_o')], [])).toEqual([]);
    expect(ownerToLand(OWNER, [open], [seen('i_o')], [pane('to', { state: 'blocked' })])).toEqual([]);
    const older = seen('i_o', { ahead: 1, observed_ms: T0 });
    const newer = seen('i_o', { ahead: 3, observed_ms: T0 + 1 });
    expect(ownerToLand(OWNER, [open], [newer, older], [pane('to')]).map((r) => r.ahead)).toEqual([3]);
  });

  it("count an open child on a peer by that peer's pane, never by a pane of the same id here", () => {
    // Its branch as the peer forwarded it; its pane as the peer's cached snapshot shows it.
    const far = agentItem('i_far', 'tp', { host: 'big', pane: 'w2:tp' });
    const observed = [seen('i_far', { ahead: 1 })];
    const row = { item: 'i_far', name: 'child-tp', host: 'big', branch: 'feat/far', ahead: 1 };
    expect(ownerToLand(OWNER, [far], observed, [pane('tp', { host: 'big' })])).toEqual([
      expect.objectContaining(row),
    ]);
    expect(ownerToLand(OWNER, [far], observed, [pane('tp', { host: 'big', state: 'working' })])).toEqual([]);
    // This host's pane w2:tp (terminal tp) is another agent: its idle says nothing of the peer's child.
    expect(ownerToLand(OWNER, [far], observed, [pane('tp')])).toEqual([]);
    expect(
      ownerToLand(OWNER, [far], observed, [pane('tp'), pane('tp', { host: 'big', state: 'done' })]),
    ).toEqual([expect.objectContaining(row)]);
  });
});

describe('the gate, once per distinct set', () => {
  const row = (item: string, ahead = 1, dirty = false): LandRow => ({
    item,
    name: item,
    host: 'local',
    branch: 'b',
    ahead,
    dirty,
    observed_ms: T0,
  });

  it('reminds of a new set once; row order and the same set again stay silent', () => {
    const first = gateStep(undefined, [row('i_a'), row('i_b')], 2);
    expect(first).toMatchObject({ remind: true, changed: true });
    expect(gateStep(first.next ?? [], [row('i_b'), row('i_a')], 2)).toMatchObject({
      remind: false,
      changed: false,
    });
  });

  it('reminds again when a child gains commits or changes, not when it goes from idle to done', () => {
    const history = gateStep(undefined, [row('i_a')], 1).next ?? [];
    expect(gateStep(history, [row('i_a', 2)], 1).remind).toBe(true);
    expect(gateStep(history, [row('i_a', 1, true)], 1).remind).toBe(true);
    expect(gateKey([row('i_a')])).toBe(gateKey([{ ...row('i_a'), name: 'renamed' }]));
  });

  it('stays silent with nothing to land, and clears the history once the owner has no open items and nothing to land', () => {
    expect(gateStep(['x'], [], 3)).toMatchObject({ remind: false, changed: false, next: ['x'] });
    expect(gateStep(['x'], [], 0)).toMatchObject({ remind: false, changed: true, next: null });
    expect(gateStep(undefined, [], 0)).toMatchObject({ changed: false });
  });

  it('keeps the history while closed children still have work to land, so closing them repeats nothing', () => {
    const history = gateStep(undefined, [row('i_a')], 1).next ?? [];
    expect(gateStep(history, [row('i_a')], 0)).toMatchObject({
      remind: false,
      changed: false,
      next: history,
    });
    expect(gateStep(history, [row('i_a', 2)], 0)).toMatchObject({ remind: true, changed: true });
    expect(gateStep(undefined, [row('i_a')], 0)).toMatchObject({ remind: true });
  });

  it('keeps a bounded history', () => {
    let history: string[] = [];
    for (let i = 0; i < GATE_HISTORY_MAX + 5; i++) history = gateStep(history, [row(`i_${i}`)], 1).next ?? [];
    expect(history).toHaveLength(GATE_HISTORY_MAX);
    expect(history.at(-1)).toBe(gateKey([row(`i_${GATE_HISTORY_MAX + 4}`)]));
  });

  it('asks for review, commits and integration, and says it changed nothing itself', () => {
    const text = gateReminder([row('child-a', 2), row('child-b', 0, true)], (t) => t);
    expect(text).toContain('Before you stop: 2 finished children have work to land.');
    expect(text).toContain('- child-a: branch b, 2 commits to land');
    expect(text).toContain('- child-b: branch b, uncommitted changes');
    expect(text).toContain('This reminder commits, merges, closes and discards nothing.');
    const far = gateReminder([{ ...row('kid'), host: 'netcup\x1b[2J' }], (t) => t.replace(/\x1b\[2J/g, ''));
    expect(far).toContain('- kid on netcup: branch b, 1 commit to land');
    const huge = gateReminder([{ ...row('n'.repeat(5000)), branch: 'b'.repeat(5000) }], (t) => t);
    expect(huge.length).toBeLessThan(600);
    const many = gateReminder(
      Array.from({ length: 14 }, (_, i) => row(`c${i}`)),
      (t) => t,
    );
    expect(many).toContain('- and 4 more (dogsled board)');
  });
});

describe("the owner's work", () => {
  it('groups the owner items and tickets by what the owner must do', () => {
    const items: Item[] = [
      agentItem('i_land', 'ta'),
      agentItem('i_blocked', 'tb'),
      agentItem('i_stalled', 'tc'),
      agentItem('i_idle', 'td'),
      agentItem('i_gone', 'tz'),
      { ...agentItem('i_job', 'tj'), kind: 'job', job: 'j_1', command: ['make', 'test'] },
    ];
    const panes = [
      pane('ta'),
      pane('tb', { state: 'blocked' }),
      pane('tc', { state: 'working', stalled_since_ms: T0 + 5 }),
      pane('td'),
    ];
    const ticket = {
      id: 't_1',
      owner: OWNER,
      state: 'pending',
      created_ms: T0,
      request: null,
    } as unknown as Ticket;
    const settled = { ...ticket, id: 't_2', state: 'admitted' } as Ticket;
    const toLand = ownerToLand(OWNER, items, [seen('i_land'), seen('i_idle', { ahead: 0 })], panes);
    const work = ownerWork(OWNER, items, [ticket, settled], panes, toLand);
    expect(work.toLand.map((r) => r.item)).toEqual(['i_land']);
    expect(work.attention.map((e) => [e.label, e.state])).toEqual([
      ['child-tb', 'blocked'],
      ['child-tc', 'stalled'],
    ]);
    expect(work.idle.map((e) => e.label)).toEqual(['child-td']);
    expect(work.running.map((e) => [e.label, e.state])).toEqual([
      ['child-tz', 'not seen'],
      ['job j_1', 'running'],
    ]);
    expect(work.queued.map((e) => e.label)).toEqual(['t_1']);
    expect(isEmptyWork(ownerWork('w5:p5', items, [ticket], panes, []))).toBe(true);
  });

  it('never judges a child on a peer by a local pane that shares its pane or terminal id', () => {
    const far = agentItem('i_far', 'tb', { host: 'bravo', pane: 'w2:tb' });
    const work = ownerWork(OWNER, [far], [], [pane('tb', { state: 'blocked' })], []);
    expect(work.attention).toEqual([]);
    expect(work.running.map((e) => [e.label, e.state])).toEqual([['child-tb', 'open on bravo']]);
  });
});
