import { describe, expect, it } from 'vitest';
import { renderAgentPanes, SHOWN_PANES } from '../../../cli/render/agent-pane-lines.js';
import { paint } from '../../../cli/render/color.js';
import type { AgentPane } from '../../../service/core/agents/agent-pane-types.js';
import { agentPaneFixture } from '../../helpers/snapshot.js';

const MIN = 60_000;
const plain = paint(false);

function pane(over: Partial<AgentPane>): AgentPane {
  return agentPaneFixture('w1:p1', 'working', 0, {
    transcript: '/t.jsonl',
    transcript_modified: 0,
    cwd: '/repo',
    ...over,
  });
}

describe('agent pane lines in status', () => {
  it('shows pane, agent, name, state age and worktree facts', () => {
    const lines = renderAgentPanes(
      [pane({ name: 'reviewer', branch: 'feat/review', ahead: 2, dirty: true, state_since_ms: 0 })],
      3 * MIN,
      plain,
    );
    expect(lines).toEqual(['    w1:p1   claude reviewer    working 3m     feat/review +2 dirty']);
  });

  it('puts stalled panes first with their silence', () => {
    const lines = renderAgentPanes(
      [pane({ pane: 'w1:p2', state: 'idle' }), pane({ pane: 'w1:p3', stalled_since_ms: 10 * MIN })],
      12 * MIN,
      plain,
    );
    expect(lines[0]).toContain('w1:p3');
    expect(lines[0]).toContain('stalled 12m');
    expect(lines[1]).not.toContain('stalled');
  });

  it('keeps every line within 80 columns, long branch names included', () => {
    const long = pane({
      name: 'a-very-long-agent-n',
      branch: 'feature/an-extremely-long-branch-name',
      ahead: 120,
      dirty: true,
      stalled_since_ms: 0,
    });
    for (const line of renderAgentPanes([long], 100 * MIN, plain))
      expect(line.length).toBeLessThanOrEqual(80);
  });

  it('folds panes beyond the shown count into one line', () => {
    const many = Array.from({ length: SHOWN_PANES + 3 }, (_, i) =>
      pane({ pane: `w1:p${i + 1}`, terminal_id: `t${i}` }),
    );
    const lines = renderAgentPanes(many, 0, plain);
    expect(lines).toHaveLength(SHOWN_PANES + 1);
    expect(lines.at(-1)).toContain('+3 more');
  });
});
