import { describe, expect, it } from 'vitest';
import {
  type AgentFacts,
  classifyForeground,
  type Foreground,
  type JudgedPane,
  ownerKeep,
  type PaneFacts,
  paneVerdict,
  promptState,
  workspaceVerdicts,
} from '../../../../service/core/cleanup/pane-rule.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = 1_800_000_000_000;

const shell = (argv: string[] | undefined, name = 'bash') => ({
  shell_pid: 100,
  foreground_process_group_id: 100,
  foreground_processes: [{ pid: 100, name, ...(argv ? { argv } : {}) }],
});

describe('classifyForeground', () => {
  it('sees a known shell alone in its foreground group with no arguments as a shell at its prompt', () => {
    expect(classifyForeground(shell(['/bin/bash']))).toEqual({ kind: 'shell', shell: 'bash', pid: 100 });
  });

  it('accepts login and interactive options, alone or clustered', () => {
    for (const argv of [
      ['-bash'],
      ['zsh', '-l'],
      ['bash', '-il'],
      ['bash', '--login', '--noprofile', '--norc'],
    ]) {
      expect(classifyForeground(shell(argv)).kind).toBe('shell');
    }
  });

  it('names the command in the foreground group, never its arguments', () => {
    const info = {
      shell_pid: 100,
      foreground_process_group_id: 200,
      foreground_processes: [{ pid: 200, name: 'sleep', argv: ['sleep', '30'], cmdline: 'sleep 30' }],
    };
    expect(classifyForeground(info)).toEqual({ kind: 'running', program: 'sleep', reason: 'runs sleep' });
  });

  it('names another member of the shell group when the shell has no job control', () => {
    const info = {
      shell_pid: 100,
      foreground_process_group_id: 100,
      foreground_processes: [
        { pid: 100, name: 'sh', argv: ['sh'] },
        { pid: 101, name: 'make', argv: ['make', '-j8'] },
      ],
    };
    expect(classifyForeground(info)).toEqual({ kind: 'running', program: 'make', reason: 'runs make' });
  });

  it('treats sh -c, a script and an unknown option as a running shell, naming only the shell', () => {
    expect(classifyForeground(shell(['sh', '-c', 'echo secret-token'], 'sh'))).toEqual({
      kind: 'running',
      program: 'sh',
      reason: 'sh runs a command (-c)',
    });
    expect(classifyForeground(shell(['bash', '-lc', 'x']))).toMatchObject({
      reason: 'bash runs a command (-c)',
    });
    expect(classifyForeground(shell(['bash', 'deploy.sh']))).toMatchObject({ reason: 'bash runs a script' });
    expect(classifyForeground(shell(['bash', '--', 'deploy.sh']))).toMatchObject({
      reason: 'bash runs a script',
    });
    expect(classifyForeground(shell(['bash', '-x']))).toMatchObject({ reason: 'bash has an unknown option' });
    expect(classifyForeground(shell(['bash', '--rcfile']))).toMatchObject({
      reason: 'bash has an unknown option',
    });
    expect(classifyForeground(shell(['bash', '+O']))).toMatchObject({ reason: 'bash has an unknown option' });
  });

  it('treats a root process that is not a known shell as a running program', () => {
    expect(classifyForeground(shell(['htop'], 'htop'))).toEqual({
      kind: 'running',
      program: 'htop',
      reason: 'runs htop',
    });
  });

  it('strips terminal escapes from program names, which the process itself chooses', () => {
    const info = {
      shell_pid: 100,
      foreground_process_group_id: 200,
      foreground_processes: [{ pid: 200, name: 'ev\u001b[31mil' }],
    };
    expect(classifyForeground(info)).toMatchObject({ program: 'evil' });
  });

  it('cannot tell when the process exited or its facts are missing', () => {
    expect(classifyForeground({ foreground_processes: [] })).toEqual({
      kind: 'unknown',
      reason: 'its process has exited',
    });
    expect(classifyForeground({ shell_pid: 100, foreground_processes: [] })).toMatchObject({
      kind: 'unknown',
    });
    expect(
      classifyForeground({ shell_pid: 100, foreground_process_group_id: 200, foreground_processes: [] }),
    ).toMatchObject({ kind: 'unknown', reason: 'its foreground processes cannot be read' });
    expect(
      classifyForeground({ shell_pid: 100, foreground_process_group_id: 100, foreground_processes: [] }),
    ).toMatchObject({ kind: 'unknown', reason: 'its shell process cannot be read' });
    expect(classifyForeground(shell(undefined))).toEqual({
      kind: 'unknown',
      reason: 'the arguments of bash cannot be read',
    });
  });
});

describe('promptState', () => {
  const atPrompt: Foreground = { kind: 'shell', shell: 'bash', pid: 100 };

  it('is an empty prompt when the shell has no children', () => {
    expect(promptState(atPrompt, [])).toEqual({ kind: 'empty', shell: 'bash' });
  });

  it('keeps a shell whose background job still runs, naming the job', () => {
    expect(promptState(atPrompt, ['sleep', 'tail'])).toEqual({
      kind: 'running',
      program: 'sleep',
      reason: 'a background job runs (sleep and 1 more)',
    });
  });

  it('cannot tell when the children cannot be read', () => {
    expect(promptState(atPrompt, null)).toEqual({
      kind: 'unknown',
      reason: 'the child processes of bash cannot be read',
    });
  });

  it('passes a running or unknown foreground through', () => {
    const running: Foreground = { kind: 'running', program: 'vim', reason: 'runs vim' };
    expect(promptState(running, null)).toBe(running);
  });
});

/** An empty bash prompt with no record, watched for `emptyFor`. */
function emptyShell(overrides: Partial<PaneFacts> = {}, emptyFor = 20 * MIN): PaneFacts {
  return {
    pane: 'w1:p2',
    terminalId: 'term_a',
    caller: false,
    focused: false,
    agent: null,
    prompt: { kind: 'empty', shell: 'bash' },
    directoryGone: false,
    cwd: '/work/repo',
    records: [],
    watch: { pane: 'w1:p2', empty_since_ms: NOW - emptyFor, observed_ms: NOW - 5_000 },
    ...overrides,
  };
}

const agent = (overrides: Partial<AgentFacts> = {}): AgentFacts => ({
  kind: 'claude',
  status: 'idle',
  doneMark: true,
  openChildren: 0,
  ...overrides,
});

function agentPane(facts: Partial<AgentFacts>, idleFor = 25 * HOUR): PaneFacts {
  return emptyShell({
    agent: agent(facts),
    prompt: { kind: 'unknown', reason: 'not checked' },
    watch: { pane: 'w1:p2', empty_since_ms: null, idle_since_ms: NOW - idleFor, observed_ms: NOW - 5_000 },
  });
}

describe('paneVerdict: who always stays', () => {
  it("keeps the caller's pane and the focused pane even when they qualify", () => {
    expect(paneVerdict(emptyShell({ caller: true }), NOW)).toEqual({
      kind: 'keep',
      reason: "the caller's pane",
    });
    expect(paneVerdict(emptyShell({ focused: true }), NOW)).toEqual({
      kind: 'keep',
      reason: 'focused in Herdr',
    });
  });
});

describe('paneVerdict: shells', () => {
  it('keeps a shell that runs something, with the reason of the fresh check', () => {
    const facts = emptyShell({ prompt: { kind: 'running', program: 'sleep', reason: 'runs sleep' } });
    expect(paneVerdict(facts, NOW)).toEqual({ kind: 'keep', reason: 'runs sleep' });
  });

  it('keeps a shell whose state cannot be read', () => {
    const facts = emptyShell({ prompt: { kind: 'unknown', reason: 'its process has exited' } });
    expect(paneVerdict(facts, NOW)).toEqual({
      kind: 'keep',
      reason: 'cannot tell whether it is idle: its process has exited',
    });
  });

  it('closes an empty shell whose directory disappeared, at once', () => {
    const facts = emptyShell({ directoryGone: true, watch: undefined });
    expect(paneVerdict(facts, NOW)).toEqual({
      kind: 'close',
      reason: 'empty bash prompt; its directory /work/repo is gone',
    });
  });

  it('closes an empty shell whose job ended, its launch is final or its item closed, at once', () => {
    for (const [kind, said] of [
      ['job', 'job j1 ended'],
      ['launch', 'launch j1 is final'],
      ['item', 'agent item j1 closed'],
    ] as const) {
      const facts = emptyShell({ records: [{ kind, id: 'j1', finished: true }], watch: undefined });
      expect(paneVerdict(facts, NOW)).toEqual({ kind: 'close', reason: `empty bash prompt; its ${said}` });
    }
  });

  it('keeps an empty shell while any of its records is still open', () => {
    const facts = emptyShell({
      records: [
        { kind: 'job', id: 'j1', finished: true },
        { kind: 'item', id: 'i7', finished: false },
      ],
    });
    expect(paneVerdict(facts, NOW)).toEqual({ kind: 'keep', reason: 'its agent item i7 is open' });
    const job = emptyShell({ records: [{ kind: 'job', id: 'j2', finished: false }] });
    expect(paneVerdict(job, NOW)).toEqual({ kind: 'keep', reason: 'its job j2 has not ended' });
  });

  it('closes a shell without a record after 15 minutes continuously at an empty prompt', () => {
    expect(paneVerdict(emptyShell({}, 15 * MIN), NOW)).toEqual({
      kind: 'close',
      reason: 'empty bash prompt for 15m with no dogsled record',
    });
    expect(paneVerdict(emptyShell({}, 14 * MIN), NOW)).toEqual({
      kind: 'keep',
      reason: 'empty bash prompt for 14m, no dogsled record; closes after 15m',
    });
  });

  it('keeps a shell without a record that the service has not seen empty, or not seen lately', () => {
    expect(paneVerdict(emptyShell({ watch: undefined }), NOW).reason).toBe(
      'empty bash prompt, no dogsled record; the service has not observed it (is dogsled serve running?)',
    );
    const reset = emptyShell({ watch: { pane: 'w1:p2', empty_since_ms: null, observed_ms: NOW - 5_000 } });
    expect(paneVerdict(reset, NOW).reason).toBe(
      'empty bash prompt, no dogsled record; the service has not yet seen it empty (closes after 15m)',
    );
    const stale = emptyShell({
      watch: { pane: 'w1:p2', empty_since_ms: NOW - 2 * HOUR, observed_ms: NOW - HOUR },
    });
    expect(paneVerdict(stale, NOW)).toEqual({
      kind: 'keep',
      reason:
        'empty bash prompt, no dogsled record; the service last observed it 60m ago (is dogsled serve running?)',
    });
  });

  it('judges staleness by the gap it is given', () => {
    const watched = emptyShell({
      watch: { pane: 'w1:p2', empty_since_ms: NOW - HOUR, observed_ms: NOW - 10 * MIN },
    });
    expect(paneVerdict(watched, NOW).kind).toBe('keep');
    expect(paneVerdict(watched, NOW, 20 * MIN).kind).toBe('close');
  });
});

describe('paneVerdict: owners (owning dogsled work is a dogsled record)', () => {
  it('keeps a shell or an agent that owns open items or queued tickets, however long it rested', () => {
    const owner = emptyShell({ owns: { items: 2, tickets: 1 } }, 16 * MIN);
    expect(paneVerdict(owner, NOW)).toEqual({
      kind: 'keep',
      reason: 'it owns 2 open items and 1 queued ticket',
    });
    expect(paneVerdict(emptyShell({ owns: { items: 0, tickets: 1 } }), NOW).reason).toBe(
      'it owns 1 queued ticket',
    );
    expect(paneVerdict({ ...agentPane({}), owns: { items: 1, tickets: 0 } }, NOW).reason).toBe(
      'it owns 1 open item',
    );
    // Before its directory or its own finished records are looked at.
    const gone = emptyShell({
      directoryGone: true,
      records: [{ kind: 'job', id: 'j1', finished: true }],
      owns: { items: 1, tickets: 0 },
    });
    expect(paneVerdict(gone, NOW).kind).toBe('keep');
  });

  it('keeps a pane whose registered reader has records waiting, or whose inbox cannot be read', () => {
    expect(paneVerdict(emptyShell({ inbox: { pending: 3 } }), NOW)).toEqual({
      kind: 'keep',
      reason: 'its inbox reader has 3 undelivered records',
    });
    expect(paneVerdict({ ...agentPane({}), inbox: { pending: 1 } }, NOW).reason).toBe(
      'its inbox reader has 1 undelivered record',
    );
    expect(paneVerdict(emptyShell({ inbox: { unreadable: 'inbox/t.json is a FIFO' } }), NOW).reason).toBe(
      'its inbox cannot be read: inbox/t.json is a FIFO',
    );
  });

  it('owning nothing and an inbox with nothing waiting change nothing', () => {
    const idle = emptyShell({ owns: { items: 0, tickets: 0 }, inbox: { pending: 0 } }, 16 * MIN);
    expect(paneVerdict(idle, NOW)).toEqual({
      kind: 'close',
      reason: 'empty bash prompt for 16m with no dogsled record',
    });
    expect(ownerKeep({})).toBeNull();
  });

  it("never outranks the caller's and the focused pane", () => {
    expect(paneVerdict(emptyShell({ caller: true, owns: { items: 1, tickets: 0 } }), NOW).reason).toBe(
      "the caller's pane",
    );
  });
});

describe('paneVerdict: agents', () => {
  it('closes an agent that called done and has been idle or done for more than 24 hours', () => {
    expect(paneVerdict(agentPane({}), NOW)).toEqual({
      kind: 'close',
      reason: 'claude called dogsled done and is idle for 25h',
    });
    expect(paneVerdict(agentPane({ status: 'done' }), NOW).kind).toBe('close');
  });

  it('keeps an agent at exactly 24 hours: it needs more', () => {
    expect(paneVerdict(agentPane({}, 24 * HOUR), NOW)).toEqual({
      kind: 'keep',
      reason: 'claude called dogsled done and is idle for 24h; closes after 24h',
    });
  });

  it('keeps working, blocked, unknown and pending agents', () => {
    expect(paneVerdict(agentPane({ status: 'working' }), NOW).reason).toBe('claude is working');
    expect(paneVerdict(agentPane({ status: 'blocked' }), NOW).reason).toBe(
      'claude is blocked, waiting for an answer',
    );
    expect(paneVerdict(agentPane({ status: 'unknown' }), NOW).reason).toBe('the state of claude is unknown');
    expect(paneVerdict(agentPane({ kind: null }), NOW).reason).toBe('an agent launch is pending');
  });

  it('keeps an agent with open children, and one without a done mark', () => {
    expect(paneVerdict(agentPane({ openChildren: 2 }), NOW).reason).toBe('claude has 2 open children');
    expect(paneVerdict(agentPane({ openChildren: 1 }), NOW).reason).toBe('claude has 1 open child');
    expect(paneVerdict(agentPane({ doneMark: false, status: 'done' }), NOW).reason).toBe(
      'claude is done and has not called dogsled done',
    );
  });

  it('keeps an agent the service has not watched idle, or not lately', () => {
    const unwatched = { ...agentPane({}), watch: undefined };
    expect(paneVerdict(unwatched, NOW).reason).toBe(
      'claude called dogsled done; the service has not observed it (is dogsled serve running?)',
    );
    const busyLastTick = {
      ...agentPane({}),
      watch: { pane: 'w1:p2', empty_since_ms: null, idle_since_ms: null, observed_ms: NOW - 1_000 },
    };
    expect(paneVerdict(busyLastTick, NOW).reason).toBe(
      'claude called dogsled done; the service has not yet seen it idle (closes after 24h)',
    );
  });

  it('ignores the shell facts of an agent pane', () => {
    const facts = {
      ...agentPane({}),
      directoryGone: true,
      records: [{ kind: 'job' as const, id: 'j', finished: true }],
    };
    expect(paneVerdict(facts, NOW).reason).toBe('claude called dogsled done and is idle for 25h');
  });
});

const closes = (pane: string, workspace: string, caller = false): JudgedPane => ({
  pane,
  workspace,
  caller,
  verdict: { kind: 'close', reason: `${pane} qualifies` },
});
const keeps = (pane: string, workspace: string, caller = false): JudgedPane => ({
  pane,
  workspace,
  caller,
  verdict: { kind: 'keep', reason: 'runs sleep' },
});
const ws = (workspace: string, paneCount: number, closedWithWorktree: string | null = null) => ({
  workspace,
  paneCount,
  closedWithWorktree,
});

describe('workspaceVerdicts', () => {
  it('closes a workspace whole when every pane qualifies, and its panes go with it', () => {
    const plan = workspaceVerdicts([ws('w2', 2)], [closes('w2:p1', 'w2'), closes('w2:p2', 'w2')]);
    expect(plan.workspaces).toEqual([
      {
        workspace: 'w2',
        panes: ['w2:p1', 'w2:p2'],
        verdict: { kind: 'close', reason: 'all 2 panes qualify' },
      },
    ]);
    expect(plan.panes).toEqual([
      {
        pane: 'w2:p1',
        workspace: 'w2',
        disposition: 'with_workspace',
        reason: 'closes with workspace w2: w2:p1 qualifies',
      },
      {
        pane: 'w2:p2',
        workspace: 'w2',
        disposition: 'with_workspace',
        reason: 'closes with workspace w2: w2:p2 qualifies',
      },
    ]);
  });

  it("gives a one-pane workspace its pane's reason", () => {
    const plan = workspaceVerdicts([ws('w2', 1)], [closes('w2:p1', 'w2')]);
    expect(plan.workspaces[0]?.verdict).toEqual({ kind: 'close', reason: 'w2:p1 qualifies' });
  });

  it('keeps a workspace with one busy pane and closes its other panes one by one', () => {
    const plan = workspaceVerdicts([ws('w2', 2)], [closes('w2:p1', 'w2'), keeps('w2:p2', 'w2')]);
    expect(plan.workspaces[0]?.verdict).toEqual({ kind: 'keep', reason: 'pane w2:p2 stays: runs sleep' });
    expect(plan.panes.map((pane) => pane.disposition)).toEqual(['close', 'keep']);
  });

  it("keeps the caller's workspace even when its other panes all qualify", () => {
    const caller: JudgedPane = {
      ...keeps('w1:p1', 'w1', true),
      verdict: { kind: 'keep', reason: "the caller's pane" },
    };
    const plan = workspaceVerdicts([ws('w1', 2)], [caller, closes('w1:p2', 'w1')]);
    expect(plan.workspaces[0]?.verdict).toEqual({ kind: 'keep', reason: "the caller's workspace" });
    expect(plan.panes[1]?.disposition).toBe('close');
  });

  it('leaves a workspace that a worktree removal closes to that removal', () => {
    const plan = workspaceVerdicts(
      [ws('w3', 2, '/wt/feature')],
      [closes('w3:p1', 'w3'), keeps('w3:p2', 'w3')],
    );
    expect(plan.workspaces[0]?.verdict).toEqual({ kind: 'keep', reason: 'closes with worktree /wt/feature' });
    expect(plan.panes).toEqual([
      {
        pane: 'w3:p1',
        workspace: 'w3',
        disposition: 'with_worktree',
        reason: 'closes with worktree /wt/feature',
      },
      { pane: 'w3:p2', workspace: 'w3', disposition: 'keep', reason: 'runs sleep' },
    ]);
  });

  it('keeps a workspace whose panes were not all seen, or none were', () => {
    const plan = workspaceVerdicts([ws('w2', 3), ws('w4', 1)], [closes('w2:p1', 'w2')]);
    expect(plan.workspaces.map((w) => w.verdict.reason)).toEqual([
      'Herdr reports 3 panes but 1 was seen',
      'no pane of it was seen',
    ]);
    expect(plan.panes[0]?.disposition).toBe('close');
  });

  it('shows idle shells leaving with a removed worktree: in the workspace that shows it or working in it', () => {
    const idle = (pane: string, workspace: string, removedWorktree: string | null = null): JudgedPane => ({
      ...keeps(pane, workspace),
      verdict: { kind: 'keep', reason: 'at an empty prompt for 3m (closes after 15m)' },
      idleShell: true,
      removedWorktree,
    });
    const plan = workspaceVerdicts(
      [ws('w3', 2, '/wt/feature'), ws('w1', 2)],
      [idle('w3:p1', 'w3'), keeps('w3:p2', 'w3'), idle('w1:p4', 'w1', '/wt/feature'), idle('w1:p5', 'w1')],
    );
    expect(plan.panes.map((pane) => [pane.pane, pane.disposition, pane.reason])).toEqual([
      ['w3:p1', 'with_worktree', 'closes with worktree /wt/feature'],
      ['w3:p2', 'keep', 'runs sleep'],
      ['w1:p4', 'with_worktree', 'closes with worktree /wt/feature'],
      ['w1:p5', 'keep', 'at an empty prompt for 3m (closes after 15m)'],
    ]);
  });
});
