import { describe, expect, it } from 'vitest';
import { agentCallerEnvironment } from '../../../../service/core/agents/agent-env.js';

describe('agentCallerEnvironment', () => {
  it("keeps the caller's PATH and nothing else: no harness, pane or secret variable", () => {
    const caller = {
      PATH: '/home/me/.local/bin:/usr/bin',
      CLAUDECODE: '1',
      HERDR_PANE_ID: 'w1:p1',
      TMUX_PANE: '%3',
      ANTHROPIC_API_KEY: 'sk-secret',
      HOME: '/home/me',
    };
    expect(agentCallerEnvironment(caller)).toEqual({ PATH: '/home/me/.local/bin:/usr/bin' });
  });

  it('is empty for a caller without a PATH (the pane keeps its own)', () => {
    expect(agentCallerEnvironment({ HOME: '/home/me', PATH: undefined })).toEqual({});
  });
});
