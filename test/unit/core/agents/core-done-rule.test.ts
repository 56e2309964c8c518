// When a child's `dogsled done` turn has ended (core/done-rule.ts): the first idle or done
// observation after the mark; working, blocked and unknown never authorize closure.

import { describe, expect, it } from 'vitest';
import { cancellingWork, turnEnded } from '../../../../service/core/agents/done-rule.js';

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

describe('cancellingWork', () => {
  const record = (kind: string, delivered_ms: number | null) => ({ id: `m_${kind}`, kind, delivered_ms });

  it('a message or task delivered at or after the mark cancels it', () => {
    expect(cancellingWork({ marked_ms: 100 }, [record('message', 100)])?.id).toBe('m_message');
    expect(cancellingWork({ marked_ms: 100 }, [record('task', 150)])?.id).toBe('m_task');
  });

  it('work delivered before the mark, undelivered work and notices do not', () => {
    const records = [
      record('message', 99),
      record('task', null),
      record('reply', 200),
      record('admission', 200),
    ];
    expect(cancellingWork({ marked_ms: 100 }, records)).toBeNull();
  });
});
