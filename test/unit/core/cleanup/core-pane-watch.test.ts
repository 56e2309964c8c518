import { describe, expect, it } from 'vitest';
import {
  carryWatch,
  isFresh,
  WATCH_MAX_GAP_MS,
  type WatchMap,
} from '../../../../service/core/cleanup/pane-watch-carry.js';

const NOW = 1_800_000_000_000;
const TICK = 5_000;

describe('carryWatch', () => {
  it('starts the empty clock at the first empty sample and carries it while every sample is empty', () => {
    const first = carryWatch({}, [{ terminal_id: 't1', pane: 'w1:p1', kind: 'shell', empty: true }], NOW);
    expect(first).toEqual({ t1: { pane: 'w1:p1', empty_since_ms: NOW, observed_ms: NOW } });
    const second = carryWatch(
      first,
      [{ terminal_id: 't1', pane: 'w1:p1', kind: 'shell', empty: true }],
      NOW + TICK,
    );
    expect(second.t1).toEqual({ pane: 'w1:p1', empty_since_ms: NOW, observed_ms: NOW + TICK });
  });

  it('resets the clock on a busy sample', () => {
    const before: WatchMap = { t1: { pane: 'w1:p1', empty_since_ms: NOW - 60_000, observed_ms: NOW - TICK } };
    const busy = carryWatch(before, [{ terminal_id: 't1', pane: 'w1:p1', kind: 'shell', empty: false }], NOW);
    expect(busy.t1?.empty_since_ms).toBeNull();
    const again = carryWatch(
      busy,
      [{ terminal_id: 't1', pane: 'w1:p1', kind: 'shell', empty: true }],
      NOW + TICK,
    );
    expect(again.t1?.empty_since_ms).toBe(NOW + TICK);
  });

  it('restarts the clock after a gap longer than the allowed one', () => {
    const before: WatchMap = {
      t1: { pane: 'w1:p1', empty_since_ms: NOW - 3_600_000, observed_ms: NOW - WATCH_MAX_GAP_MS - 1 },
    };
    const after = carryWatch(before, [{ terminal_id: 't1', pane: 'w1:p1', kind: 'shell', empty: true }], NOW);
    expect(after.t1?.empty_since_ms).toBe(NOW);
    const wider = carryWatch(
      before,
      [{ terminal_id: 't1', pane: 'w1:p1', kind: 'shell', empty: true }],
      NOW,
      10 * 60_000,
    );
    expect(wider.t1?.empty_since_ms).toBe(NOW - 3_600_000);
  });

  it('keys by terminal id: a moved pane keeps its clock, a new terminal in the same pane does not', () => {
    const before: WatchMap = { t1: { pane: 'w1:p1', empty_since_ms: NOW - 60_000, observed_ms: NOW - TICK } };
    const moved = carryWatch(before, [{ terminal_id: 't1', pane: 'w2:p3', kind: 'shell', empty: true }], NOW);
    expect(moved.t1).toEqual({ pane: 'w2:p3', empty_since_ms: NOW - 60_000, observed_ms: NOW });
    const replaced = carryWatch(
      before,
      [{ terminal_id: 't2', pane: 'w1:p1', kind: 'shell', empty: true }],
      NOW,
    );
    expect(replaced).toEqual({ t2: { pane: 'w1:p1', empty_since_ms: NOW, observed_ms: NOW } });
  });

  it("carries an agent's idle clock and resets it when the agent works", () => {
    const first = carryWatch({}, [{ terminal_id: 'a', pane: 'w1:p2', kind: 'agent', resting: true }], NOW);
    expect(first.a).toEqual({ pane: 'w1:p2', empty_since_ms: null, idle_since_ms: NOW, observed_ms: NOW });
    const still = carryWatch(
      first,
      [{ terminal_id: 'a', pane: 'w1:p2', kind: 'agent', resting: true }],
      NOW + TICK,
    );
    expect(still.a?.idle_since_ms).toBe(NOW);
    const working = carryWatch(
      still,
      [{ terminal_id: 'a', pane: 'w1:p2', kind: 'agent', resting: false }],
      NOW + 2 * TICK,
    );
    expect(working.a?.idle_since_ms).toBeNull();
  });

  it('does not carry a shell clock into an agent, or back', () => {
    const shell: WatchMap = { t: { pane: 'w1:p1', empty_since_ms: NOW - 60_000, observed_ms: NOW - TICK } };
    const agent = carryWatch(shell, [{ terminal_id: 't', pane: 'w1:p1', kind: 'agent', resting: true }], NOW);
    expect(agent.t).toMatchObject({ empty_since_ms: null, idle_since_ms: NOW });
    const back = carryWatch(
      agent,
      [{ terminal_id: 't', pane: 'w1:p1', kind: 'shell', empty: true }],
      NOW + TICK,
    );
    expect(back.t).toEqual({ pane: 'w1:p1', empty_since_ms: NOW + TICK, observed_ms: NOW + TICK });
  });

  it('forgets terminals that were not sampled', () => {
    const before: WatchMap = {
      gone: { pane: 'w1:p1', empty_since_ms: NOW - 60_000, observed_ms: NOW - TICK },
    };
    expect(carryWatch(before, [], NOW)).toEqual({});
  });
});

describe('isFresh', () => {
  it('accepts an observation within the gap and refuses one from the future', () => {
    expect(isFresh({ observed_ms: NOW - 1_000 }, NOW, 5_000)).toBe(true);
    expect(isFresh({ observed_ms: NOW - 6_000 }, NOW, 5_000)).toBe(false);
    expect(isFresh({ observed_ms: NOW + 1 }, NOW, 5_000)).toBe(false);
  });
});
