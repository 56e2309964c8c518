import { describe, expect, it } from 'vitest';
import {
  CHECK_IN_AFTER_MS,
  type ChildFacts,
  checkInPlan,
  EVENT_RETENTION_MS,
  emptyWatchdog,
  keptNotifications,
  notificationsDue,
  type OwnerFacts,
  pruneEvents,
} from '../../../../service/core/agents/watchdog-rule.js';
import type { WatchdogState } from '../../../../service/core/agents/watchdog-types.js';
import { checkInText } from '../../../../service/core/inbox/check-in-text.js';

const T0 = 1_800_000_000_000;
const OWNER = 'w1:p1';
const MIN = 60_000;

function child(over: Partial<ChildFacts> = {}): ChildFacts {
  return {
    item: 'i_a',
    kind: 'agent',
    pane: 'w2:p1',
    label: 'reviewer (w2:p1)',
    host: 'local',
    state: 'working',
    since_ms: T0,
    created_ms: T0,
    transcript_modified: T0,
    stalled_since_ms: null,
    activity: null,
    command: null,
    ...over,
  };
}

function owner(over: Partial<OwnerFacts> = {}): OwnerFacts {
  return {
    owner: OWNER,
    state: 'idle',
    reader: true,
    children: [child()],
    lifecycle_ms: T0,
    orphans: [],
    ...over,
  };
}

function state(over: Partial<WatchdogState> = {}): WatchdogState {
  return { ...emptyWatchdog(T0 - MIN), ...over };
}

const jobEvent = (ended_ms: number, delivered_ms: number | null = null) => ({
  owner: OWNER,
  command: ['npm', 'test'],
  ended_ms,
  exit_code: 1,
  signal: null,
  reason: null,
  log: [],
  seen_ms: ended_ms,
  delivered_ms,
});

describe('check-in due', () => {
  it('comes 30 minutes after the last lifecycle event, not a minute earlier', () => {
    expect(checkInPlan(owner(), state(), T0 + CHECK_IN_AFTER_MS - MIN)).toBeUndefined();
    expect(checkInPlan(owner(), state(), T0 + CHECK_IN_AFTER_MS)?.reasons).toEqual(['quiet']);
  });

  it('counts from the last check-in when that is later', () => {
    const memory = { last_check_in_ms: T0 + 20 * MIN, last_event_ms: null, stalls: {}, pending: null };
    const s = state({ owners: { [OWNER]: memory } });
    expect(checkInPlan(owner(), s, T0 + 40 * MIN)).toBeUndefined();
    expect(checkInPlan(owner(), s, T0 + 50 * MIN)?.reasons).toEqual(['quiet']);
  });

  it('is not postponed by transcript writes alone', () => {
    const busy = owner({ children: [child({ transcript_modified: T0 + 29 * MIN })] });
    expect(checkInPlan(busy, state(), T0 + CHECK_IN_AFTER_MS)?.reasons).toEqual(['quiet']);
  });

  it('goes only to idle or done owners with a reader', () => {
    const at = T0 + CHECK_IN_AFTER_MS;
    for (const s of ['working', 'blocked', 'unknown'])
      expect(checkInPlan(owner({ state: s }), state(), at)).toBeUndefined();
    expect(checkInPlan(owner({ state: null }), state(), at)).toBeUndefined();
    expect(checkInPlan(owner({ reader: false }), state(), at)).toBeUndefined();
    expect(checkInPlan(owner({ state: 'done' }), state(), at)).toBeDefined();
  });

  it('is due at once on a new stall, and not again for the same stall episode', () => {
    const stalled = owner({ children: [child({ stalled_since_ms: T0 + 10 * MIN })] });
    const plan = checkInPlan(stalled, state(), T0 + 11 * MIN);
    expect(plan).toMatchObject({ reasons: ['stall'], stalls: { i_a: T0 + 10 * MIN } });
    const told = state({
      owners: {
        [OWNER]: {
          last_check_in_ms: T0 + 11 * MIN,
          last_event_ms: null,
          stalls: { i_a: T0 + 10 * MIN },
          pending: null,
        },
      },
    });
    expect(checkInPlan(stalled, told, T0 + 12 * MIN)).toBeUndefined();
    const again = owner({ children: [child({ stalled_since_ms: T0 + 30 * MIN })] });
    expect(checkInPlan(again, told, T0 + 31 * MIN)?.reasons).toEqual(['stall']);
  });

  it('is due on a completed job even with no open child left (events survive item closure)', () => {
    const s = state({ events: { j_1: jobEvent(T0) } });
    expect(checkInPlan(owner({ children: [] }), s, T0 + MIN)).toMatchObject({
      reasons: ['job'],
      jobs: ['j_1'],
    });
    const delivered = state({ events: { j_1: jobEvent(T0, T0 + MIN) } });
    expect(checkInPlan(owner({ children: [] }), delivered, T0 + 2 * MIN)).toBeUndefined();
  });

  it('never comes for an owner with nothing open and nothing pending, whatever the clock', () => {
    expect(checkInPlan(owner({ children: [] }), state(), Number.MAX_SAFE_INTEGER)).toBeUndefined();
    expect(
      checkInPlan(owner({ lifecycle_ms: -Infinity }), state(), Number.MAX_SAFE_INTEGER)?.reasons,
    ).toEqual(['quiet']);
  });
});

describe('stall notifications', () => {
  const pane = { pane: 'w3:p1', terminal_id: 't3', name: 'solo', stalled_since_ms: T0 };

  it('are due once per stall episode', () => {
    expect(notificationsDue([pane], state())).toEqual([pane]);
    expect(notificationsDue([pane], state({ notified: { t3: T0 } }))).toEqual([]);
    expect(
      notificationsDue([{ ...pane, stalled_since_ms: T0 + MIN }], state({ notified: { t3: T0 } })),
    ).toHaveLength(1);
  });

  it('forget an episode once the pane recovered, keep one still running', () => {
    expect(keptNotifications({ t3: T0, t4: T0 }, [pane])).toEqual({ t3: T0 });
  });
});

describe('job events', () => {
  it('are forgotten after their retention, delivered or not', () => {
    const s = state({ events: { old: jobEvent(T0), fresh: jobEvent(T0 + MIN) } });
    expect(Object.keys(pruneEvents(s, T0 + MIN + EVENT_RETENTION_MS))).toEqual(['fresh']);
  });
});

describe('the check-in note', () => {
  it('names children, hosts, states, ages and silence, quotes activity as untrusted, and says what to do', () => {
    const facts = owner({
      children: [
        child({
          state: 'working',
          since_ms: T0 - 15 * MIN,
          stalled_since_ms: T0 - 2 * MIN,
          transcript_modified: T0 - 12 * MIN,
          activity: 'tool_call: rm -rf \u001b]52;c;ZXZpbA==\u0007/ \u001b[31mred\u001b[0m',
        }),
      ],
      orphans: ['old-child (w9:p1): done, owner gone'],
    });
    const event = {
      job: 'j_1',
      ...jobEvent(T0 - 3 * MIN),
      log: ['ok 1', 'not ok 2 \u001b[2J', 'x'.repeat(500)],
    };
    const text = checkInText(facts, [event], ['stall', 'job'], T0);
    expect(text).not.toMatch(/\u001b|\u0007/);
    expect(text).toContain('- reviewer (w2:p1) on local: working 15m, STALLED 2m, transcript silent 12m');
    expect(text).toContain('    | tool_call: rm -rf / red');
    expect(text).toContain('- job j_1 (npm test) exited 1 3m ago');
    expect(text).toContain('    | not ok 2 ');
    expect(text).toContain('untrusted');
    expect(text).toContain('old-child (w9:p1): done, owner gone');
    expect(text).toMatch(/wait.*dogsled send.*dogsled close.*dogsled stop/s);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(220);
  });
});
