import { describe, expect, it } from 'vitest';
import {
  agentCounts,
  composeAgentPanes,
  memoryOf,
  type ObservedAgentPane,
} from '../../../../service/core/agents/agent-pane-clocks.js';
import {
  nextStallClock,
  STALL_AFTER_MS,
  stallThreshold,
  stallTokenChanges,
} from '../../../../service/core/agents/stall.js';

const MIN = 60_000;

describe('the stall rule', () => {
  it('starts the state clock at the first observation', () => {
    expect(
      nextStallClock(undefined, { state: 'working', transcript_modified: 0 }, 5 * MIN, STALL_AFTER_MS),
    ).toEqual({ state_since_ms: 5 * MIN, stalled_since_ms: null, stallable_since_ms: 5 * MIN });
  });

  it('stalls a working agent ten minutes after its last transcript change', () => {
    const previous = {
      state: 'working',
      state_since_ms: 0,
      transcript_modified: 1 * MIN,
      stalled_since_ms: null,
    };
    const before = nextStallClock(
      previous,
      { state: 'working', transcript_modified: 1 * MIN },
      10 * MIN,
      STALL_AFTER_MS,
    );
    expect(before.stalled_since_ms).toBeNull();
    const after = nextStallClock(
      previous,
      { state: 'working', transcript_modified: 1 * MIN },
      11 * MIN,
      STALL_AFTER_MS,
    );
    expect(after).toMatchObject({ state_since_ms: 0, stalled_since_ms: 11 * MIN });
  });

  it('keeps the first stall time while the transcript stays unchanged', () => {
    const previous = {
      state: 'unknown',
      state_since_ms: 0,
      transcript_modified: 0,
      stalled_since_ms: 10 * MIN,
    };
    const clock = nextStallClock(
      previous,
      { state: 'unknown', transcript_modified: 0 },
      30 * MIN,
      STALL_AFTER_MS,
    );
    expect(clock.stalled_since_ms).toBe(10 * MIN);
  });

  it('clears the stall when the transcript changes', () => {
    const previous = {
      state: 'working',
      state_since_ms: 0,
      transcript_modified: 0,
      stalled_since_ms: 10 * MIN,
    };
    const clock = nextStallClock(
      previous,
      { state: 'working', transcript_modified: 29 * MIN },
      30 * MIN,
      STALL_AFTER_MS,
    );
    expect(clock.stalled_since_ms).toBeNull();
  });

  it('never stalls idle, done or blocked agents', () => {
    for (const state of ['idle', 'done', 'blocked']) {
      const previous = { state, state_since_ms: 0, transcript_modified: 0, stalled_since_ms: null };
      expect(
        nextStallClock(previous, { state, transcript_modified: 0 }, 60 * MIN, STALL_AFTER_MS)
          .stalled_since_ms,
      ).toBeNull();
    }
  });

  it('never stalls an agent without a readable transcript', () => {
    const previous = {
      state: 'working',
      state_since_ms: 0,
      transcript_modified: null,
      stalled_since_ms: null,
    };
    const clock = nextStallClock(
      previous,
      { state: 'working', transcript_modified: null },
      60 * MIN,
      STALL_AFTER_MS,
    );
    expect(clock.stalled_since_ms).toBeNull();
  });

  it('does not count the quiet time before an agent started working', () => {
    const idle = { state: 'idle', state_since_ms: 0, transcript_modified: 0, stalled_since_ms: null };
    const started = nextStallClock(
      idle,
      { state: 'working', transcript_modified: 0 },
      60 * MIN,
      STALL_AFTER_MS,
    );
    expect(started).toMatchObject({ state_since_ms: 60 * MIN, stalled_since_ms: null });
    const memory = { state: 'working', transcript_modified: 0, ...started };
    const later = nextStallClock(
      memory,
      { state: 'working', transcript_modified: 0 },
      70 * MIN,
      STALL_AFTER_MS,
    );
    expect(later.stalled_since_ms).toBe(70 * MIN);
  });

  it('keeps the stall clock running across working and unknown', () => {
    const working = { state: 'working', state_since_ms: 0, transcript_modified: 0, stalled_since_ms: null };
    const flipped = nextStallClock(
      working,
      { state: 'unknown', transcript_modified: 0 },
      6 * MIN,
      STALL_AFTER_MS,
    );
    expect(flipped).toMatchObject({ state_since_ms: 6 * MIN, stallable_since_ms: 0 });
    const memory = { state: 'unknown', transcript_modified: 0, ...flipped };
    const later = nextStallClock(
      memory,
      { state: 'unknown', transcript_modified: 0 },
      10 * MIN,
      STALL_AFTER_MS,
    );
    expect(later.stalled_since_ms).toBe(10 * MIN);
  });

  it('reads the test threshold only when it is a positive integer', () => {
    expect(stallThreshold(undefined)).toEqual({ ms: STALL_AFTER_MS, warning: null });
    expect(stallThreshold('1500')).toEqual({ ms: 1500, warning: null });
    expect(stallThreshold('0').warning).toContain('DOGSLED_TEST_STALL_MS');
    expect(stallThreshold('5m').ms).toBe(STALL_AFTER_MS);
  });
});

function observed(terminal: string, state: string, transcript_modified: number | null): ObservedAgentPane {
  return {
    pane: 'w1:p1',
    agent: 'claude',
    state,
    name: null,
    transcript: transcript_modified === null ? null : '/t.jsonl',
    transcript_modified,
    terminal_id: terminal,
    completion_seq: 0,
    cwd: '/repo',
    model: null,
    activity: null,
    branch: null,
    ahead: null,
    dirty: null,
    landed: null,
  };
}

describe('agent panes', () => {
  it('carries clocks by terminal id and drops vanished terminals', () => {
    const first = composeAgentPanes(
      [observed('term_a', 'working', 0), observed('term_b', 'idle', 0)],
      new Map(),
      0,
      MIN,
    );
    const second = composeAgentPanes([observed('term_a', 'working', 0)], first.memory, 2 * MIN, MIN);
    expect(second.panes[0]).toMatchObject({ state_since_ms: 0, stalled_since_ms: MIN });
    expect([...second.memory.keys()]).toEqual(['term_a']);
  });

  it('rebuilds clock memory from a published snapshot', () => {
    const { panes } = composeAgentPanes([observed('term_a', 'working', 0)], new Map(), 0, MIN);
    const again = composeAgentPanes([observed('term_a', 'working', 0)], memoryOf(panes), 3 * MIN, MIN);
    expect(again.panes[0]?.stalled_since_ms).toBe(MIN);
  });

  it('counts every agent as live and the ones not resting as active', () => {
    const states = ['working', 'blocked', 'unknown', 'idle', 'done'].map((state) => ({ state }));
    expect(agentCounts(states)).toEqual({ live: 5, active: 3 });
  });
});

describe('the $dogsled stall token', () => {
  const pane = (terminal_id: string, stalled_since_ms: number | null) => ({
    pane: 'w1:p1',
    terminal_id,
    stalled_since_ms,
  });

  it('is set on every stalled pane each tick and cleared once on recovery', () => {
    const first = stallTokenChanges([pane('a', 5), pane('b', null)], new Set());
    expect(first.set.map((p) => p.terminal_id)).toEqual(['a']);
    expect(first.clear).toEqual([]);
    const second = stallTokenChanges([pane('a', null), pane('b', null)], first.marked);
    expect(second.set).toEqual([]);
    expect(second.clear.map((p) => p.terminal_id)).toEqual(['a']);
    expect(stallTokenChanges([pane('a', null)], second.marked).clear).toEqual([]);
  });
});
