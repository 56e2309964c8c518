// The budget rule: what a day's children cost per owner and per host (each child once, ended ones
// on the day they ended, running ones always, unknown costs named and never counted), and when a
// child waits: its owner's day spent, or every host it could go to spent, with the reason; a host
// whose day is spent is only left out of a child's hosts. Reasons are escape-free.
import { describe, expect, it } from 'vitest';
import {
  type BudgetPolicy,
  budgetActive,
  budgetLines,
  budgetVerdict,
  type ChildSpend,
  daySpend,
  hostBudget,
  ticketBudgets,
} from '../../../../service/core/receipts/day-budget.js';

const DAY = { start_ms: 1_000_000, end_ms: 1_000_000 + 86_400_000 };
const NONE: BudgetPolicy = { owner_usd_per_day: null, host_usd_per_day: null, hosts: {} };
const HOSTS = [
  { id: 'local', label: 'local' },
  { id: 'gpu', label: 'big-gpu' },
];

const child = (id: string, usd: number | null, extra: Partial<ChildSpend> = {}): ChildSpend => ({
  id,
  owner: 'w1:p1',
  host: 'local',
  usd,
  ended_ms: DAY.start_ms + 60_000,
  ...extra,
});

describe("a day's spend", () => {
  it('adds each child once per owner and per host, within the day, running children always', () => {
    const spend = daySpend(
      [
        child('i1', 1.5),
        child('i1', 1.5), // the same child in history and in items
        child('i2', 2, { owner: 'w1:p2', host: 'gpu' }),
        child('i3', 4, { ended_ms: DAY.start_ms - 1 }), // yesterday
        child('i4', 8, { ended_ms: DAY.end_ms }), // tomorrow
        child('i5', 0.25, { ended_ms: null }), // running since yesterday
        child('i6', null), // cost unknown
        child('i7', 3, { owner: null, host: 'gpu' }), // an owner on another host
      ],
      DAY,
    );
    expect(Object.fromEntries(spend.owners)).toEqual({ 'w1:p1': 1.75, 'w1:p2': 2 });
    expect(Object.fromEntries(spend.hosts)).toEqual({ local: 1.75, gpu: 5 });
    expect(spend.unknown).toBe(1);
  });

  it('never counts a cost that is not a plausible amount', () => {
    const spend = daySpend(
      [child('a', Number.NaN), child('b', -3), child('c', Number.POSITIVE_INFINITY)],
      DAY,
    );
    expect(spend.owners.size).toBe(0);
    expect(spend.unknown).toBe(3);
  });
});

describe('the budget verdict of a child', () => {
  const policy: BudgetPolicy = { owner_usd_per_day: 5, host_usd_per_day: 10, hosts: { gpu: 20 } };

  it('lets a child start while its owner and some host have money left', () => {
    const spend = daySpend([child('a', 4.99)], DAY);
    expect(budgetVerdict({ owner: 'w1:p1', pin: null }, HOSTS, spend, policy, DAY)).toEqual({
      hold: null,
      spent_hosts: [],
    });
  });

  it('holds a child whose owner spent its day, until the day ends', () => {
    const spend = daySpend([child('a', 3), child('b', 2)], DAY);
    const verdict = budgetVerdict({ owner: 'w1:p1', pin: null }, HOSTS, spend, policy, DAY);
    expect(verdict.hold).toEqual({
      pool: 'budget',
      until_ms: DAY.end_ms,
      reason: 'budget: owner w1:p1 spent $5.00 of its $5.00 today',
    });
    // Another owner's child is not held by it.
    expect(budgetVerdict({ owner: 'w1:p9', pin: null }, HOSTS, spend, policy, DAY).hold).toBeNull();
    // Nor a child nobody owns (no pane).
    expect(budgetVerdict({ owner: null, pin: null }, HOSTS, spend, policy, DAY).hold).toBeNull();
  });

  it('leaves a spent host out of a free child, and holds one pinned to it', () => {
    const spend = daySpend([child('a', 10, { owner: 'w1:p7' })], DAY);
    expect(budgetVerdict({ owner: 'w1:p1', pin: null }, HOSTS, spend, policy, DAY)).toEqual({
      hold: null,
      spent_hosts: ['local'],
    });
    const pinned = budgetVerdict({ owner: 'w1:p1', pin: 'local' }, HOSTS, spend, policy, DAY);
    expect(pinned.hold?.reason).toBe('budget: host local spent $10.00 of its $10.00 today');
    // Pinned by label to the other host: it has its own, larger amount left.
    expect(budgetVerdict({ owner: 'w1:p1', pin: 'big-gpu' }, HOSTS, spend, policy, DAY).hold).toBeNull();
  });

  it('holds a free child when every host spent its day, naming each', () => {
    const spend = daySpend(
      [child('a', 12, { owner: 'x' }), child('b', 21, { owner: 'y', host: 'gpu' })],
      DAY,
    );
    const verdict = budgetVerdict({ owner: 'w1:p1', pin: null }, HOSTS, spend, policy, DAY);
    expect(verdict.hold?.reason).toBe(
      'budget: every host spent its day (local spent $12.00 of its $10.00; big-gpu spent $21.00 of its $20.00)',
    );
    expect(verdict.spent_hosts).toEqual(['local', 'gpu']);
  });

  it('holds nothing for a pin no host answers to (admission fails it)', () => {
    const spend = daySpend([child('a', 50)], DAY);
    const verdict = budgetVerdict({ owner: null, pin: 'nowhere' }, HOSTS, spend, policy, DAY);
    expect(verdict.hold).toBeNull();
  });

  it('names an owner made of escape sequences without them', () => {
    const owner = 'w1\u001b[2J\u001b]0;pwn\u0007:p1';
    const spend = daySpend([child('a', 6, { owner })], DAY);
    const reason = budgetVerdict({ owner, pin: null }, HOSTS, spend, policy, DAY).hold?.reason ?? '';
    expect(reason).toContain('spent $6.00 of its $5.00 today');
    expect(reason).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it('judges only pending children, and nothing without a budget', () => {
    const spend = daySpend([child('a', 100)], DAY);
    const pending = [
      { id: 't1', kind: 'job', owner: 'w1:p1', pin: null },
      { id: 't2', kind: 'agent', owner: 'w1:p1', pin: null },
      { id: 't3', kind: 'place', owner: 'w1:p1', pin: null },
    ];
    expect([...ticketBudgets(pending, HOSTS, spend, policy, DAY).keys()]).toEqual(['t2']);
    expect(ticketBudgets(pending, HOSTS, spend, NONE, DAY).size).toBe(0);
  });
});

describe('budget settings', () => {
  it('is active with any one amount; a host has its own amount over every host', () => {
    expect(budgetActive(NONE)).toBe(false);
    expect(budgetActive({ ...NONE, hosts: { gpu: 1 } })).toBe(true);
    expect(hostBudget({ ...NONE, host_usd_per_day: 3, hosts: { gpu: 9 } }, 'gpu')).toBe(9);
    expect(hostBudget({ ...NONE, host_usd_per_day: 3, hosts: { gpu: 9 } }, 'local')).toBe(3);
    expect(hostBudget(NONE, 'local')).toBeNull();
  });

  it("lists each owner's and host's spend beside its amount", () => {
    const spend = daySpend([child('a', 6), child('b', 1, { owner: 'w1:p2', host: 'gpu' })], DAY);
    const lines = budgetLines(spend, { owner_usd_per_day: 5, host_usd_per_day: null, hosts: { gpu: 20 } }, [
      'local',
      'gpu',
      'idle',
    ]);
    expect(lines).toEqual([
      { kind: 'owner', name: 'w1:p1', spent_usd: 6, limit_usd: 5, spent_out: true },
      { kind: 'owner', name: 'w1:p2', spent_usd: 1, limit_usd: 5, spent_out: false },
      { kind: 'host', name: 'gpu', spent_usd: 1, limit_usd: 20, spent_out: false },
      { kind: 'host', name: 'local', spent_usd: 6, limit_usd: null, spent_out: false },
    ]);
  });
});
