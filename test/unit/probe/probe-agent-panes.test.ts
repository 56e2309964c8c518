import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  type AgentPaneReaders,
  type LiveAgentPane,
  observeAgentPanes,
} from '../../../service/probe/agent-pane-observe.js';
import { mapLimited } from '../../../service/probe/map-limited.js';

function live(pane: string, cwd: string | null): LiveAgentPane {
  return {
    pane,
    terminal_id: `term_${pane}`,
    agent: 'claude',
    state: 'working',
    name: null,
    completion_seq: 3,
    cwd,
    session: { kind: 'id', value: `s-${pane}` },
  };
}

function readers(over: Partial<AgentPaneReaders> = {}): AgentPaneReaders & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    width: 2,
    transcript: async (pane) => {
      calls.push(`transcript ${pane.pane}`);
      return { path: `/t/${pane.pane}.jsonl`, modified_ms: 100 };
    },
    transcriptFacts: async (path) => {
      calls.push(`facts ${path}`);
      return { model: 'opus', activity: { at_ms: 90, kind: 'message', text: 'hi' } };
    },
    checkoutRoot: async (cwd) => {
      calls.push(`root ${cwd}`);
      return cwd.startsWith('/repo') ? '/repo' : null;
    },
    checkout: async (root) => {
      calls.push(`checkout ${root}`);
      return { branch: 'feat/x', ahead: 2, dirty: false, landed: false };
    },
    ...over,
  };
}

describe('observing agent panes', () => {
  it('reads a checkout shared by several panes once per tick', async () => {
    const r = readers();
    const { panes, errors } = await observeAgentPanes(
      [live('w1:p1', '/repo'), live('w1:p2', '/repo/sub'), live('w2:p1', '/tmp')],
      r,
    );
    expect(errors).toEqual([]);
    expect(r.calls.filter((c) => c.startsWith('checkout '))).toEqual(['checkout /repo']);
    expect(panes.map((p) => p.branch)).toEqual(['feat/x', 'feat/x', null]);
    expect(panes[0]).toMatchObject({
      pane: 'w1:p1',
      transcript: '/t/w1:p1.jsonl',
      transcript_modified: 100,
      model: 'opus',
      completion_seq: 3,
      ahead: 2,
      dirty: false,
    });
  });

  it('leaves one pane facts empty when its reads fail, and says why', async () => {
    const r = readers({
      transcript: async (pane) => {
        if (pane.pane === 'w1:p2') throw new Error('EACCES');
        return { path: '/t/ok.jsonl', modified_ms: 1 };
      },
      checkout: async () => {
        throw new Error('git timed out');
      },
    });
    const { panes, errors } = await observeAgentPanes([live('w1:p1', '/repo'), live('w1:p2', '/repo')], r);
    expect(panes[0]).toMatchObject({ transcript: '/t/ok.jsonl', branch: null, landed: null });
    expect(panes[1]).toMatchObject({ transcript: null, transcript_modified: null, model: null });
    expect(errors).toEqual(['transcript of w1:p2: EACCES', 'checkout /repo: git timed out']);
  });

  it('never runs more reads at once than its width', async () => {
    let running = 0;
    let peak = 0;
    await mapLimited(Array.from({ length: 9 }), 3, async () => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(5);
      running -= 1;
    });
    expect(peak).toBe(3);
  });
});
