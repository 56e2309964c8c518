import { describe, expect, it } from 'vitest';
import {
  type BoardInput,
  type BoardItem,
  type BoardJob,
  type BoardTicket,
  boardOf,
  boardRows,
  TITLE_MAX,
} from '../../../../service/core/board/board-rule.js';
import { NEVER_STARTED_MS } from '../../../../service/core/jobs/job-status.js';

const NOW = 1_800_000_000_000;
const MIN = 60_000;
const OWNER = 'w1:p1';

function item(id: string, job: string, extra: Partial<BoardItem> = {}): BoardItem {
  return {
    id,
    kind: 'job',
    host: 'local',
    pane: `w2:${id}`,
    owner: OWNER,
    created_ms: NOW - 10 * MIN,
    closed_ms: null,
    close_reason: null,
    job,
    ticket: null,
    command: ['make', 'test'],
    ...extra,
  };
}

function job(id: string, extra: Partial<BoardJob> = {}): BoardJob {
  return {
    id,
    command: ['make', 'test'],
    cwd: '/repo',
    host: 'local',
    pane: 'w2:p1',
    created_ms: NOW - 10 * MIN,
    started_ms: NOW - 9 * MIN,
    ended_ms: null,
    exit_code: null,
    signal: null,
    reason: null,
    ...extra,
  };
}

function ticket(id: string, extra: Partial<BoardTicket> = {}): BoardTicket {
  return {
    id,
    kind: 'job',
    owner: OWNER,
    pin: null,
    created_ms: NOW - 5 * MIN,
    state: 'pending',
    state_ms: NOW - 5 * MIN,
    host: null,
    request: { command: ['make', 'lint'] },
    error: null,
    ...extra,
  };
}

function board(input: Partial<BoardInput>) {
  return boardOf({ owner: OWNER, items: [], tickets: [], jobs: new Map(), ...input }, NOW);
}

function only(input: Partial<BoardInput>) {
  const rows = boardRows(board(input));
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

describe('the board rule for jobs', () => {
  it('puts a running job in RUNNING, aged from its start', () => {
    const row = only({ items: [item('i1', 'j1')], jobs: new Map([['j1', job('j1')]]) });
    expect(row).toMatchObject({ group: 'running', state: 'running', kind: 'job', id: 'j1', age_ms: 9 * MIN });
    expect(row.title).toBe('make test');
  });

  it('shows a job exec has not started as starting, and as never started after the setup budget', () => {
    const created = job('j1', { started_ms: null, created_ms: NOW - MIN });
    expect(only({ items: [item('i1', 'j1')], jobs: new Map([['j1', created]]) })).toMatchObject({
      group: 'running',
      state: 'starting',
    });
    const stuck = job('j1', { started_ms: null, created_ms: NOW - NEVER_STARTED_MS - 1 });
    expect(only({ items: [item('i1', 'j1')], jobs: new Map([['j1', stuck]]) })).toMatchObject({
      group: 'attention',
      state: 'never started',
    });
  });

  it.each([
    ['a non-zero exit', { exit_code: 3 }, 'exit 3', 'exited 3'],
    ['a signal', { signal: 'SIGKILL' }, 'SIGKILL', 'killed by SIGKILL'],
    ['its timeout', { signal: 'SIGTERM', reason: 'timeout' }, 'timeout', 'killed at its --timeout'],
    ['its idle timeout', { signal: 'SIGTERM', reason: 'idle-timeout' }, 'idle timeout', 'killed after'],
    ['a lost wrapper', { reason: 'wrapper lost' }, 'wrapper lost', 'wrapper died'],
  ])(
    'puts a job that ended with %s in ATTENTION while its closed item is kept',
    (_what, end, state, reason) => {
      const ended = job('j1', { ended_ms: NOW - 2 * MIN, ...end });
      const closed = item('i1', 'j1', { closed_ms: NOW - 2 * MIN, close_reason: 'job ended' });
      const row = only({ items: [closed], jobs: new Map([['j1', ended]]) });
      expect(row).toMatchObject({ group: 'attention', state, age_ms: 2 * MIN });
      expect(row.reason).toContain(reason);
    },
  );

  it('files a job that exited 0, or that someone stopped, under DONE', () => {
    const ok = job('j1', { ended_ms: NOW - MIN, exit_code: 0 });
    expect(only({ items: [item('i1', 'j1')], jobs: new Map([['j1', ok]]) })).toMatchObject({
      group: 'done',
      state: 'exit 0',
    });
    const stopped = job('j2', { ended_ms: NOW - MIN, signal: 'SIGTERM', reason: 'stopped' });
    expect(only({ items: [item('i2', 'j2')], jobs: new Map([['j2', stopped]]) })).toMatchObject({
      group: 'done',
      state: 'stopped',
    });
  });

  it('flags an open item whose job record is missing, and drops a closed one (its record expired)', () => {
    expect(only({ items: [item('i1', 'j1')] })).toMatchObject({ group: 'attention', state: 'missing' });
    expect(boardRows(board({ items: [item('i1', 'j1', { closed_ms: NOW - MIN })] }))).toEqual([]);
  });

  it("shows only the owner's items", () => {
    const theirs = item('i1', 'j1', { owner: 'w9:p9' });
    expect(boardRows(board({ items: [theirs], jobs: new Map([['j1', job('j1')]]) }))).toEqual([]);
  });
});

describe('the board rule for tickets', () => {
  it("puts pending tickets in WAITING with their place among every owner's pending tickets", () => {
    const tickets = [
      ticket('t_other', { owner: 'w9:p9', created_ms: NOW - 9 * MIN }),
      ticket('t_mine2', { created_ms: NOW - MIN }),
      ticket('t_mine1', { created_ms: NOW - 3 * MIN }),
      ticket('t_done', { state: 'admitted', created_ms: NOW - 20 * MIN }),
    ];
    const rows = boardRows(board({ tickets }));
    expect(rows.map((r) => [r.id, r.group, r.state, r.place])).toEqual([
      ['t_mine1', 'waiting', 'queued', 2],
      ['t_mine2', 'waiting', 'queued', 3],
    ]);
  });

  it('shows an admitting ticket as WAITING, a failed one in ATTENTION with its error, a cancelled one not at all', () => {
    const rows = boardRows(
      board({
        tickets: [
          ticket('t1', { state: 'admitting', state_ms: NOW - 1000 }),
          ticket('t2', { state: 'failed', error: 'launch failed: \u001b[31mboom\u001b[0m' }),
          ticket('t3', { state: 'cancelled' }),
        ],
      }),
    );
    expect(rows.map((r) => [r.id, r.group, r.state])).toEqual([
      ['t2', 'attention', 'failed'],
      ['t1', 'waiting', 'admitting'],
    ]);
    expect(rows[0]?.reason).toBe('launch failed: boom');
  });

  it('gives a ticket waiting for its quota the reason, escape-free, until the reset', () => {
    const hold = { pool: 'codex', until_ms: NOW + MIN, reason: 'codex quota \u001b[31mexhausted' };
    expect(only({ tickets: [ticket('t1', { hold })] })).toMatchObject({
      group: 'waiting',
      state: 'queued',
      reason: 'codex quota exhausted',
    });
    expect(only({ tickets: [ticket('t1', { hold: { ...hold, until_ms: NOW } })] }).reason).toBeNull();
    expect(only({ tickets: [ticket('t1')] }).reason).toBeNull();
  });

  it('names a place ticket as a placement, and a pinned one by its host', () => {
    const row = only({ tickets: [ticket('t1', { kind: 'place', request: null, pin: 'netcup' })] });
    expect(row).toMatchObject({ title: 'placement', detail: 'pinned to netcup' });
  });
});

describe('the board rule for agents and branches (extension points)', () => {
  const agent = (extra: Partial<BoardItem> = {}) =>
    item('i_a', 'unused', {
      kind: 'agent',
      job: null,
      command: undefined,
      name: 'reviewer',
      harness: 'codex',
      ...extra,
    });
  const pane = (state: string, stalled: number | null = null) => ({
    pane: 'w2:i_a',
    agent: 'codex',
    state,
    name: 'reviewer',
    model: 'gpt-5',
    stalled_since_ms: stalled,
    state_since_ms: NOW - 4 * MIN,
  });

  it.each([
    ['working', 'running', 'working'],
    ['blocked', 'attention', 'blocked'],
    ['idle', 'attention', 'idle'],
    ['done', 'attention', 'done'],
    ['unknown', 'running', 'unknown'],
  ])('shows a %s agent in %s', (state, group, shown) => {
    const row = only({ items: [agent()], agentPanes: new Map([['w2:i_a', pane(state)]]) });
    expect(row).toMatchObject({
      kind: 'agent',
      group,
      state: shown,
      title: 'reviewer',
      detail: 'codex · gpt-5',
    });
  });

  it('puts a stalled agent in ATTENTION, aged from the stall', () => {
    const row = only({
      items: [agent()],
      agentPanes: new Map([['w2:i_a', pane('working', NOW - 12 * MIN)]]),
    });
    expect(row).toMatchObject({ group: 'attention', state: 'stalled', age_ms: 12 * MIN });
  });

  it('lists the TO LAND rows it is given as `<child>: branch <b> +N to land`, escape-free', () => {
    const land = {
      item: 'i_a',
      name: 'reviewer\u001b[2J',
      host: 'local',
      branch: 'feat/x',
      ahead: 2,
      dirty: true,
      observed_ms: NOW - MIN,
    };
    expect(only({ toLand: [land] })).toMatchObject({
      group: 'to_land',
      item: 'i_a',
      reason: 'reviewer: branch feat/x +2 dirty to land',
      age_ms: MIN,
    });
    expect(boardRows(board({ toLand: [] }))).toEqual([]);
  });
});

describe('board text is safe to draw', () => {
  it('strips escape sequences and control characters from commands and cuts them', () => {
    const hostile = job('j1', {
      command: ['sh', '-c', `echo \u001b]0;pwned\u0007hi\n${'x'.repeat(1000)}`],
      cwd: '/tmp/\u001b[2Jdir',
    });
    const row = only({ items: [item('i1', 'j1')], jobs: new Map([['j1', hostile]]) });
    expect(row.title).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(row.title.startsWith("sh -c 'echo hi ")).toBe(true);
    expect(row.title.length).toBeLessThanOrEqual(TITLE_MAX);
    expect(row.detail).toBe('/tmp/dir');
  });

  it('keeps groups in board order, each oldest first', () => {
    const jobs = new Map([
      ['j1', job('j1', { started_ms: NOW - MIN })],
      ['j2', job('j2', { started_ms: NOW - 5 * MIN })],
      ['j3', job('j3', { ended_ms: NOW, exit_code: 1 })],
    ]);
    const result = board({ items: [item('i1', 'j1'), item('i2', 'j2'), item('i3', 'j3')], jobs });
    expect(result.groups.map((g) => g.id)).toEqual(['to_land', 'attention', 'running', 'waiting', 'done']);
    expect(boardRows(result).map((r) => r.id)).toEqual(['j3', 'j2', 'j1']);
  });
});

describe('dismissed ATTENTION rows (board --dismiss)', () => {
  const failed = () => job('j_f', { ended_ms: NOW - 3 * MIN, exit_code: 3 });

  it('moves a dismissed row to DONE with when it was seen, keeping its state and reason', () => {
    const seen = [{ kind: 'job' as const, id: 'j_f', since_ms: NOW - 3 * MIN, seen_ms: NOW - MIN }];
    const row = only({ items: [item('i1', 'j_f')], jobs: new Map([['j_f', failed()]]), seen });
    expect(row).toMatchObject({ group: 'done', state: 'exit 3', reason: 'exited 3', seen_ms: NOW - MIN });
    const plain = only({ items: [item('i1', 'j_f')], jobs: new Map([['j_f', failed()]]) });
    expect(plain).toMatchObject({ group: 'attention', seen_ms: null });
  });

  it('shows the same job again when it fails anew (a new end), and never hides another state', () => {
    const seen = [{ kind: 'job' as const, id: 'j_f', since_ms: NOW - 30 * MIN, seen_ms: NOW - 20 * MIN }];
    const row = only({ items: [item('i1', 'j_f')], jobs: new Map([['j_f', failed()]]), seen });
    expect(row).toMatchObject({ group: 'attention', seen_ms: null });
    // A dismissal never moves a row out of RUNNING, whatever it names.
    const running = [{ kind: 'job' as const, id: 'j_r', since_ms: NOW - 9 * MIN, seen_ms: NOW }];
    expect(
      only({ items: [item('i2', 'j_r')], jobs: new Map([['j_r', job('j_r')]]), seen: running }).group,
    ).toBe('running');
  });

  it('dismisses a blocked agent until its state changes, and a failed ticket', () => {
    const agent = item('i_a', 'unused', { kind: 'agent', job: null, command: undefined, name: 'fixer' });
    const pane = (since: number) =>
      new Map([
        [
          'w2:i_a',
          {
            pane: 'w2:i_a',
            agent: 'claude',
            state: 'blocked',
            name: 'fixer',
            model: null,
            stalled_since_ms: null,
            state_since_ms: since,
          },
        ],
      ]);
    const seen = [{ kind: 'agent' as const, id: 'i_a', since_ms: NOW - 4 * MIN, seen_ms: NOW }];
    expect(only({ items: [agent], agentPanes: pane(NOW - 4 * MIN), seen }).group).toBe('done');
    expect(only({ items: [agent], agentPanes: pane(NOW - MIN), seen }).group).toBe('attention');
    const bad = ticket('t_1', { state: 'failed', state_ms: NOW - 2 * MIN, error: 'unknown host "x"' });
    const ticketSeen = [{ kind: 'ticket' as const, id: 't_1', since_ms: NOW - 2 * MIN, seen_ms: NOW }];
    expect(only({ tickets: [bad], seen: ticketSeen })).toMatchObject({ group: 'done', seen_ms: NOW });
  });
});
