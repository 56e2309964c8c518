import { describe, expect, it } from 'vitest';
import {
  type HoldFacts,
  type HoldPane,
  type HoldProcess,
  holdsFor,
} from '../../../../service/core/cleanup/holds.js';

const MAIN = '/r';
const WT = '/r/.worktrees/x';
const OTHER = '/r/.worktrees/y';
const OWN_PID = 900;

/** init → login shell (800) → dogsled (900); Herdr (100) hosts the panes. */
const base: HoldProcess[] = [
  { pid: 1, ppid: 0, comm: 'init', cwd: '/' },
  { pid: 800, ppid: 1, comm: 'bash', cwd: OTHER },
  { pid: OWN_PID, ppid: 800, comm: 'node', cwd: OTHER },
  { pid: 100, ppid: 1, comm: 'herdr', cwd: '/home' },
];

function shell(
  pane: string,
  pid: number,
  cwd: string,
  prompt: HoldPane['prompt'] = { kind: 'empty' },
): HoldPane {
  return { pane, workspace: pane.split(':')[0] as string, cwds: [cwd], agent: null, prompt, shellPid: pid };
}

function facts(over: Partial<HoldFacts> & { extra?: HoldProcess[] } = {}): HoldFacts {
  const { extra = [], ...rest } = over;
  return {
    checkouts: [WT, OTHER],
    panes: { kind: 'read', panes: [], workspaces: [] },
    processes: { ok: true, processes: [...base, ...extra] },
    ownPid: OWN_PID,
    callerPane: null,
    ...rest,
  };
}

const reasons = (held: Map<string, { kind: string; reason: string }[]>, path: string) =>
  (held.get(path) ?? []).map((hold) => `${hold.kind}: ${hold.reason}`);

describe('pane holds', () => {
  it('an agent pane holds the checkout it works in, named by pane, agent and name', () => {
    const agent: HoldPane = {
      pane: 'w1:p2',
      workspace: 'w1',
      cwds: [`${WT}/src`],
      agent: { kind: 'claude', name: 'writer' },
      prompt: { kind: 'empty' },
      shellPid: 200,
    };
    const held = holdsFor(
      facts({
        panes: { kind: 'read', panes: [agent], workspaces: [] },
        extra: [
          { pid: 200, ppid: 100, comm: 'sh', cwd: WT },
          { pid: 201, ppid: 200, comm: 'claude', cwd: `${WT}/src` },
          { pid: 202, ppid: 201, comm: 'cargo', cwd: OTHER },
        ],
      }),
    );
    expect(reasons(held, WT)).toEqual(['pane: pane w1:p2 runs claude (writer)']);
    // The agent's own process tree is the pane's, even where it works elsewhere.
    expect(reasons(held, OTHER)).toEqual([]);
  });

  it('a pending agent launch holds its checkout', () => {
    const pending: HoldPane = { ...shell('w1:p1', 200, WT), agent: { kind: null, name: null } };
    const held = holdsFor(facts({ panes: { kind: 'read', panes: [pending], workspaces: [] } }));
    expect(reasons(held, WT)).toEqual(['pane: pane w1:p1 has an agent launch pending']);
  });

  it('a shell running a command holds; an idle shell and its root process do not', () => {
    const busy = shell('w2:p1', 300, WT, { kind: 'running', program: 'vim' });
    const idle = shell('w3:p1', 400, OTHER);
    const held = holdsFor(
      facts({
        panes: { kind: 'read', panes: [busy, idle], workspaces: [] },
        extra: [
          { pid: 300, ppid: 100, comm: 'sh', cwd: WT },
          { pid: 301, ppid: 300, comm: 'vim', cwd: WT },
          { pid: 400, ppid: 100, comm: 'sh', cwd: OTHER },
        ],
      }),
    );
    expect(reasons(held, WT)).toEqual([
      'pane: pane w2:p1 runs vim',
      `process: process sh (pid 300) works in ${WT}`,
      `process: process vim (pid 301) works in ${WT}`,
    ]);
    expect(reasons(held, OTHER)).toEqual([]);
  });

  it('a shell whose state cannot be checked holds what it works in', () => {
    const unknown = shell('w2:p1', 300, WT, { kind: 'unknown', reason: 'its processes cannot be read' });
    const held = holdsFor(facts({ panes: { kind: 'read', panes: [unknown], workspaces: [] } }));
    expect(reasons(held, WT)).toEqual(['pane: pane w2:p1 cannot be checked: its processes cannot be read']);
  });

  it("a busy pane of the workspace that shows a checkout holds it; the caller's pane there is the caller", () => {
    const elsewhere = shell('w4:p2', 500, '/tmp', { kind: 'running', program: 'top' });
    const idle = shell('w4:p1', 501, WT);
    const held = holdsFor(
      facts({
        panes: { kind: 'read', panes: [idle, elsewhere], workspaces: [{ workspace: 'w4', checkout: WT }] },
      }),
    );
    expect(reasons(held, WT)).toEqual(['pane: pane w4:p2 runs top, in the workspace that shows it']);

    const caller = holdsFor(
      facts({
        callerPane: 'w4:p1',
        panes: { kind: 'read', panes: [idle], workspaces: [{ workspace: 'w4', checkout: WT }] },
      }),
    );
    expect(reasons(caller, WT)).toEqual([
      "caller: the caller's pane w4:p1 works in it",
      "caller: the caller's pane w4:p1 is in the workspace that shows it",
    ]);
  });

  it('without Herdr nothing is held by panes; an unreadable Herdr holds every checkout', () => {
    expect(reasons(holdsFor(facts({ panes: { kind: 'absent' } })), WT)).toEqual([]);
    const held = holdsFor(
      facts({ panes: { kind: 'unreadable', error: 'socket /h.sock refused the connection' } }),
    );
    for (const path of [WT, OTHER]) {
      expect(reasons(held, path)).toEqual([
        'pane: Herdr panes could not be read: socket /h.sock refused the connection',
      ]);
    }
  });
});

describe('process holds', () => {
  it('a process working in a checkout holds it, named by program and pid, never its arguments', () => {
    const held = holdsFor(facts({ extra: [{ pid: 4242, ppid: 1, comm: 'vim', cwd: `${WT}/docs` }] }));
    expect(reasons(held, WT)).toEqual([`process: process vim (pid 4242) works in ${WT}/docs`]);
  });

  it('this process, its ancestors (the caller) and its own children are no holds', () => {
    const held = holdsFor(facts({ extra: [{ pid: 901, ppid: OWN_PID, comm: 'git', cwd: OTHER }] }));
    expect(reasons(held, OTHER)).toEqual([]);
  });

  it('the processes that host the panes are no holds', () => {
    const held = holdsFor(
      facts({
        panes: { kind: 'read', panes: [shell('w1:p1', 200, OTHER)], workspaces: [] },
        extra: [
          { pid: 150, ppid: 100, comm: 'pty-host', cwd: WT },
          { pid: 200, ppid: 150, comm: 'sh', cwd: OTHER },
        ],
      }),
    );
    expect(reasons(held, WT)).toEqual([]);
  });

  it('a background job an idle shell started holds', () => {
    const held = holdsFor(
      facts({
        panes: { kind: 'read', panes: [shell('w1:p1', 200, OTHER)], workspaces: [] },
        extra: [
          { pid: 200, ppid: 100, comm: 'sh', cwd: OTHER },
          { pid: 210, ppid: 200, comm: 'make', cwd: OTHER },
        ],
      }),
    );
    expect(reasons(held, OTHER)).toEqual([`process: process make (pid 210) works in ${OTHER}`]);
  });

  it('work in a linked worktree nested in the main checkout holds the worktree only', () => {
    const held = holdsFor(
      facts({
        checkouts: [MAIN, WT],
        extra: [
          { pid: 30, ppid: 1, comm: 'cargo', cwd: `${WT}/src` },
          { pid: 31, ppid: 1, comm: 'less', cwd: `${MAIN}/docs` },
        ],
      }),
    );
    expect(reasons(held, WT)).toEqual([`process: process cargo (pid 30) works in ${WT}/src`]);
    expect(reasons(held, MAIN)).toEqual([`process: process less (pid 31) works in ${MAIN}/docs`]);
  });

  it('a deleted working directory still counts, and a path that only shares a prefix does not', () => {
    const held = holdsFor(
      facts({
        extra: [
          { pid: 40, ppid: 1, comm: 'tail', cwd: `${WT} (deleted)` },
          { pid: 41, ppid: 1, comm: 'sleep', cwd: `${WT}-old` },
        ],
      }),
    );
    expect(reasons(held, WT)).toEqual([`process: process tail (pid 40) works in ${WT}`]);
  });

  it('names five processes per checkout and counts the rest', () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ pid: 50 + i, ppid: 1, comm: 'rustc', cwd: WT }));
    const held = reasons(holdsFor(facts({ extra: many })), WT);
    expect(held).toHaveLength(6);
    expect(held.at(-1)).toBe(`process: 3 more processes work in ${WT}`);
  });

  it('program names are stripped of terminal escapes', () => {
    const held = holdsFor(facts({ extra: [{ pid: 60, ppid: 1, comm: '\u001b[31mevil', cwd: WT }] }));
    expect(reasons(held, WT)).toEqual([`process: process evil (pid 60) works in ${WT}`]);
  });

  it('an unreadable process table holds every checkout', () => {
    const held = holdsFor(
      facts({ processes: { ok: false, error: 'process table: cannot read /proc (EACCES)' } }),
    );
    for (const path of [WT, OTHER]) {
      expect(reasons(held, path)).toEqual([
        'process-table: processes working in it cannot be ruled out (process table: cannot read /proc (EACCES))',
      ]);
    }
  });
});
