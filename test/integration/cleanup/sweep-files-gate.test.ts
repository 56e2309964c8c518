// The sweep's files on a real state dir (hostile sweep-request.json, sweeps.jsonl kept seven days by
// ts_ms) and its findings through the stop gate: a finding reaches only the owner whose open item
// works in it, once per distinct set, and a host-level one reaches nobody.

import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SweepPass } from '../../../service/core/cleanup/sweep-types.js';
import { SweepWorker } from '../../../service/daemon/sweep-worker.js';
import { gateCheck } from '../../../service/inbox/gate.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import { requestSweep } from '../../../service/sweep/request.js';
import { readLatestSweep, recordSweep } from '../../../service/sweep/sweep-files.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { itemFixture } from '../../helpers/job-fixtures.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { agentPane } from '../agents/watchdog-fixtures.js';

let box: Sandbox;
const T0 = 1_800_000_000_000;
const DAY = 24 * 3_600_000;

beforeEach(async () => {
  box = await sandbox();
  await mkdir(box.state, { recursive: true, mode: 0o700 });
});

afterEach(async () => {
  await box.cleanup();
});

function stateIO(now = () => T0, warnings: string[] = []) {
  return { paths: statePaths(box.state), now, warn: (line: string) => warnings.push(line) };
}

function worker(now = () => T0, warnings: string[] = []) {
  return new SweepWorker({
    ...stateIO(now, warnings),
    config: structuredClone(DEFAULT_CONFIG),
    env: { PATH: process.env.PATH },
    home: box.home,
    pid: process.pid,
    started_ms: T0,
    cwd: box.root,
  });
}

function pass(ts_ms: number, over: Partial<SweepPass> = {}): SweepPass {
  return {
    version: 1,
    ts_ms,
    started_ms: ts_ms,
    finished_ms: ts_ms,
    request_ms: ts_ms,
    results: [],
    skipped: [],
    failures: [],
    warnings: [],
    landed_dirty: [],
    unlinked: [],
    error: null,
    ...over,
  };
}

describe('the sweep files', () => {
  it('refuse a sweep-request.json that is a directory or a FIFO in one line, and write no pass', async () => {
    const file = join(box.state, 'sweep-request.json');
    await mkdir(file);
    await expect(worker().pass()).rejects.toThrow(/^sweep-request\.json is a directory, not a regular file$/);
    await expect(requestSweep(stateIO(), null)).rejects.toThrow(/sweep-request\.json is a directory/);
    await rm(file, { recursive: true });
    execFileSync('mkfifo', [file]);
    await expect(worker().pass()).rejects.toThrow(/^sweep-request\.json is a FIFO, not a regular file$/);
    expect((await readdir(box.state)).filter((name) => name.startsWith('sweep.json'))).toEqual([]);
  });

  it('move a corrupt sweep-request.json aside with one warning: no request, no survey', async () => {
    await writeFile(join(box.state, 'sweep-request.json'), '{"version":1,"requested_ms":');
    const warnings: string[] = [];
    expect(await worker(() => T0, warnings).pass()).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect((await readdir(box.state)).some((name) => name.startsWith('sweep-request.json.bad-'))).toBe(true);
  });

  it('answer a request once; a request made during a pass stays owed', async () => {
    await requestSweep(
      stateIO(() => T0),
      null,
    );
    const first = await worker(() => T0 + 1).pass();
    expect(first?.request_ms).toBe(T0);
    expect(await worker(() => T0 + 2).pass()).toBeUndefined();
    await requestSweep(
      stateIO(() => T0 + 3),
      'w1:p1',
    );
    expect((await worker(() => T0 + 4).pass())?.request_ms).toBe(T0 + 3);
  });

  it('keep seven days of passes in sweeps.jsonl by ts_ms, dropping torn lines, at any clock', async () => {
    const io = stateIO();
    await recordSweep(io, pass(T0 - 8 * DAY));
    await recordSweep(io, pass(T0 - 6 * DAY));
    await writeFile(join(box.state, 'sweeps.jsonl'), '{"torn', { flag: 'a' });
    await recordSweep(io, pass(T0));
    const lines = (await readFile(join(box.state, 'sweeps.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).ts_ms)).toEqual([T0 - 6 * DAY, T0]);
    await recordSweep(io, pass(Number.MAX_SAFE_INTEGER));
    const far = (await readFile(join(box.state, 'sweeps.jsonl'), 'utf8')).trim().split('\n');
    expect(far.map((line) => JSON.parse(line).ts_ms)).toEqual([Number.MAX_SAFE_INTEGER]);
  });
});

describe('the orphan check beside a requested pass', () => {
  const requested = (ts_ms: number) =>
    pass(ts_ms, {
      trigger: 'request',
      skipped: [{ kind: 'worktree', path: '/r/.worktrees/busy', branch: 'feat/busy', reason: 'dirty' }],
      warnings: ['repository /r: fetch failed'],
    });
  const orphans = (ts_ms: number) =>
    pass(ts_ms, {
      request_ms: null,
      trigger: 'orphans',
      results: [
        {
          kind: 'orphan',
          path: '/r/.worktrees/gone',
          branch: null,
          branch_deleted: false,
          panes: ['w1:p2'],
          already_removed: false,
          detail: 'child called done, owner w1:p1 gone',
        },
      ],
      orphans: [],
    });
  const history = async () =>
    (await readFile(join(box.state, 'sweeps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => [JSON.parse(line).ts_ms, JSON.parse(line).trigger]);

  it('leaves sweep.json the record of the requested pass; both passes are in sweeps.jsonl', async () => {
    const io = stateIO();
    await recordSweep(io, requested(T0));
    await recordSweep(io, orphans(T0 + 1_000));
    expect(await readLatestSweep(io)).toEqual(requested(T0));
    expect(await history()).toEqual([
      [T0, 'request'],
      [T0 + 1_000, 'orphans'],
    ]);
    // Before any requested pass there is no record to show: the orphan pass is history only.
    await rm(join(box.state, 'sweep.json'));
    await recordSweep(io, orphans(T0 + 2_000));
    expect(await readLatestSweep(io)).toBeUndefined();
    // A pass written before passes had a trigger was a requested one.
    const { trigger: _, ...older } = requested(T0 + 3_000);
    await recordSweep(io, older);
    expect(await readLatestSweep(io)).toEqual(older);
  });

  it('loses neither pass when the two lanes record at once', async () => {
    const io = stateIO();
    await Promise.all([recordSweep(io, requested(T0)), recordSweep(io, orphans(T0 + 1))]);
    await Promise.all([recordSweep(io, orphans(T0 + 2)), recordSweep(io, requested(T0 + 3))]);
    expect(await history()).toEqual([
      [T0, 'request'],
      [T0 + 1, 'orphans'],
      [T0 + 2, 'orphans'],
      [T0 + 3, 'request'],
    ]);
    expect((await readLatestSweep(io))?.ts_ms).toBe(T0 + 3);
  });

  it('records the orphan pass even when sweep.json is a directory; a requested pass fails in one line', async () => {
    const io = stateIO();
    await mkdir(join(box.state, 'sweep.json'));
    await recordSweep(io, orphans(T0));
    expect(await history()).toEqual([[T0, 'orphans']]);
    await expect(recordSweep(io, requested(T0 + 1))).rejects.toThrow(/^sweep\.json is a directory/);
    // The queue goes on after a failed record.
    await recordSweep(io, orphans(T0 + 2));
    expect(await history()).toEqual([
      [T0, 'orphans'],
      [T0 + 2, 'orphans'],
    ]);
  });
});

describe('cleanup findings through the gate', () => {
  const mine = '/work/repo/.worktrees/mine';
  const theirs = '/work/repo/.worktrees/theirs';

  async function world(): Promise<void> {
    const items = [
      itemFixture({
        id: 'i_a',
        kind: 'agent',
        owner: 'w1:p1',
        pane: 'w2:p1',
        terminal_id: 't2',
        command: undefined,
      }),
      itemFixture({
        id: 'i_b',
        kind: 'agent',
        owner: 'w5:p1',
        pane: 'w6:p1',
        terminal_id: 't6',
        command: undefined,
      }),
    ];
    await writeFile(join(box.state, 'items.json'), JSON.stringify({ version: 1, items }));
    const snapshot = snapshotFixture({ sample_ms: T0 });
    const pane = (id: string, terminal: string, cwd: string) =>
      agentPane(
        { pane: id, terminal },
        { state: 'working', transcript: null, transcript_modified: null, cwd },
      );
    snapshot.probe.agent_panes = [pane('w2:p1', 't2', `${mine}/src`), pane('w6:p1', 't6', '/elsewhere')];
    await writeSnapshot(box.state, snapshot);
  }

  it('reach only the owner whose child works there, once per set; host-level warnings reach nobody', async () => {
    await world();
    const io = stateIO();
    await recordSweep(
      io,
      pass(T0, {
        warnings: ['/work/repo: git fetch failed'],
        landed_dirty: [
          { repository: '/work/repo', checkout: mine, ref: 'main', dirty: 2, paths: ['a', 'b\u001b[2J'] },
        ],
        failures: [{ kind: 'worktree', path: theirs, branch: 'theirs', error: 'boom' }],
      }),
    );
    const told = await gateCheck(io, 'w1:p1');
    expect(told).toContain(`${mine} (main) is landed but has 2 uncommitted paths: a, b`);
    expect(told).not.toContain(theirs);
    expect(told).not.toContain('fetch');
    expect(told).not.toMatch(/\u001b/);
    expect(told).toMatch(/Never force a worktree removal, run git clean, or rm -rf the checkout/);
    expect(await gateCheck(io, 'w1:p1')).toBeUndefined();
    expect(await gateCheck(io, 'w5:p1')).toBeUndefined();
    // A new set (one more dirty path) is told again.
    await recordSweep(
      io,
      pass(T0 + 1, {
        landed_dirty: [
          { repository: '/work/repo', checkout: mine, ref: 'main', dirty: 3, paths: ['a', 'b', 'c'] },
        ],
      }),
    );
    expect(await gateCheck(io, 'w1:p1')).toContain('3 uncommitted paths');
  });
  it('reach the creator only: not a child in a parent directory, nor one in a worktree nested in the main checkout', async () => {
    const main = '/work/repo';
    const nested = '/work/repo/.worktrees/other';
    const made = '/work/repo/.worktrees/made';
    const launched = (
      id: string,
      owner: string,
      cwd: string,
      worktree: string | null,
      branch: string | null,
    ) => ({
      id,
      ticket: null,
      item: null,
      owner,
      host: 'local',
      name: 'kid',
      kind: 'claude',
      profile: null,
      model: null,
      role: 'writer',
      cwd,
      branch,
      worktree,
      pane: 'w9:p1',
      terminal_id: 't9',
      workspace: null,
      task_file: `/x/${id}.task.md`,
      contract_file: `/x/${id}.contract.md`,
      state: 'started',
      attempts: 1,
      error: null,
      recent_output: null,
      created_ms: T0 - 60_000,
      state_ms: T0 - 50_000,
      started_ms: T0 - 50_000,
    });
    const child = (id: string, owner: string, pane: string, terminal: string, more = {}) =>
      itemFixture({ id, kind: 'agent', owner, pane, terminal_id: terminal, command: undefined, ...more });
    const items = [
      child('i_a', 'w1:p1', 'w2:p1', 't2', { worktree: mine }),
      // A child whose directory is the main checkout: a parent directory of every worktree in it.
      child('i_c', 'w7:p1', 'w3:p1', 't3'),
      // A child in a registered worktree inside the main checkout.
      child('i_d', 'w8:p1', 'w4:p1', 't4'),
      // Closed: its launch record still names who made the worktree and its branch.
      child('i_e', 'w5:p1', 'w9:p1', 't9', {
        closed_ms: T0 - 10_000,
        close_reason: 'closed',
        launch: 'l_made',
        worktree: made,
        branch: 'feat/made',
        repository: main,
      }),
      // Another owner's item naming that launch does not make it that owner's.
      child('i_f', 'w6:p1', 'w9:p2', 't10', {
        closed_ms: T0 - 10_000,
        close_reason: 'closed',
        launch: 'l_made',
      }),
    ];
    await writeFile(join(box.state, 'items.json'), JSON.stringify({ version: 1, items }));
    await mkdir(join(box.state, 'launches'), { recursive: true });
    await writeFile(
      join(box.state, 'launches', 'l_made.json'),
      JSON.stringify(launched('l_made', 'w5:p1', made, made, 'feat/made')),
    );
    await writeFile(
      join(box.state, 'worktrees.json'),
      JSON.stringify({
        version: 1,
        worktrees: [
          { path: mine, repository: main, branch: 'mine', created_ms: T0 },
          { path: nested, repository: main, branch: 'other', created_ms: T0 },
        ],
      }),
    );
    const snapshot = snapshotFixture({ sample_ms: T0 });
    const pane = (id: string, terminal: string, cwd: string) =>
      agentPane({ pane: id, terminal }, { state: 'idle', transcript: null, transcript_modified: null, cwd });
    snapshot.probe.agent_panes = [
      pane('w2:p1', 't2', `${mine}/src`),
      pane('w3:p1', 't3', main),
      pane('w4:p1', 't4', `${nested}/lib`),
    ];
    await writeSnapshot(box.state, snapshot);
    const io = stateIO();
    await recordSweep(
      io,
      pass(T0, {
        landed_dirty: [
          { repository: main, checkout: mine, ref: 'mine', dirty: 1, paths: ['m'] },
          { repository: main, checkout: main, ref: 'main', dirty: 1, paths: ['top'] },
        ],
        unlinked: [
          {
            repository: main,
            path: made,
            reason: `worktree unregistered by git; directory remains: ${made}`,
          },
        ],
        failures: [{ kind: 'branch', path: main, branch: 'feat/made', error: 'tip moved' }],
      }),
    );
    const a = await gateCheck(io, 'w1:p1');
    expect(a).toContain(`${mine} (mine) is landed`);
    expect(a).not.toContain(`${main} (main)`);
    expect(a).not.toContain('feat/made');
    const c = await gateCheck(io, 'w7:p1');
    expect(c).toContain(`${main} (main) is landed`);
    expect(c).not.toContain(mine);
    expect(c).not.toContain(made);
    expect(await gateCheck(io, 'w8:p1')).toBeUndefined();
    const e = await gateCheck(io, 'w5:p1');
    expect(e).toContain(`directory remains: ${made}`);
    expect(e).toContain(`branch ${main} (feat/made): removal failed: tip moved`);
    expect(e).not.toContain(`${main} (main)`);
    expect(await gateCheck(io, 'w6:p1')).toBeUndefined();
    // Told once, though its only items are closed: the set is remembered while it lasts.
    expect(await gateCheck(io, 'w5:p1')).toBeUndefined();
  });
});
