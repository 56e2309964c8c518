// When a child's `dogsled done` turn has ended (core/done-rule.ts): the first idle or done
// observation after the mark; working, blocked and unknown never authorize closure.

import { describe, expect, it } from 'vitest';
import { turnEnded } from '../../service/core/done-rule.js';

describe('turnEnded', () => {
  it('waits while the child works, is blocked or unknown', () => {
    for (const agent_status of ['working', 'blocked', 'unknown']) {
      expect(turnEnded({ seq: 4 }, { agent_status, state_change_seq: 9 })).toBe(false);
    }
  });

  it('ends at the first idle or done observation after the mark', () => {
    expect(turnEnded({ seq: 4 }, { agent_status: 'idle', state_change_seq: 5 })).toBe(true);
    expect(turnEnded({ seq: 4 }, { agent_status: 'done', state_change_seq: 6 })).toBe(true);
  });

  it('an idle agent whose counter has not moved since the mark is still in the marked moment', () => {
    expect(turnEnded({ seq: 4 }, { agent_status: 'idle', state_change_seq: 4 })).toBe(false);
  });

  it('after a restore the counter may start over: any other value, or none at the mark, ends it', () => {
    expect(turnEnded({ seq: 40 }, { agent_status: 'idle', state_change_seq: 1 })).toBe(true);
    expect(turnEnded({ seq: null }, { agent_status: 'done', state_change_seq: 0 })).toBe(true);
  });
});
