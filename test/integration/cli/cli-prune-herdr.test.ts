// `dogsled prune` with the fake Herdr (real shells in real PTYs) and real repositories: a worktree
// removal closes the idle shell and the workspace that show it while an agent's worktree stays,
// `prune panes` closes an empty shell whose job ended but never the caller's pane, and without
// Herdr prune still removes worktrees.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { surveyCleanup } from '../../../service/cleanup/doctor.js';
import { PruneReportSchema } from '../../../service/cleanup/doctor-report.js';
import { gatherTerminalFacts, paneContext } from '../../../service/cleanup/panes/pane-facts.js';
import { worktreePanes } from '../../../service/cleanup/panes/prune-closures.js';
import { applyPlan } from '../../../service/cleanup/prune.js';
import { selectPlan } from '../../../service/core/cleanup/prune-plan.js';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { probePrompt } from '../../../service/probe/shell-panes.js';
import { openTerminal } from '../../../service/terminal/open.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import {
  cleanupIO,
  freshRepo,
  type Repo,
  refSha,
  removeScenarios,
  runCliIn,
} from '../../helpers/git-scenarios.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let repo: Repo;
let herdr: FakeHerdr;
let env: NodeJS.ProcessEnv;

async function ok(method: string, params: Record<string, unknown>) {
  const reply = await herdr.call(method, params);
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

async function landedWorktree(name: string): Promise<string> {
  const path = await repo.worktree(name);
  await repo.commit({ [`${name}.txt`]: `${name}\n` }, name, path);
  await repo.squash(name);
  return path;
}

/** Waits until the shell of `pane` sits at its prompt. */
async function idle(pane: string): Promise<void> {
  const port = await openTerminal({ env: herdr.env, home: box.home });
  await waitFor(
    `pane ${pane} at its prompt`,
    async () => ((await probePrompt(port, pane)).state.kind === 'empty' ? true : undefined),
    { timeoutMs: 10_000 },
  );
}

async function livePanes(): Promise<string[]> {
  return (await ok('pane.list', {})).panes.map((pane: { pane_id: string }) => pane.pane_id);
}

beforeEach(async () => {
  box = await sandbox();
  repo = await freshRepo();
  herdr = await startFakeHerdr({ dir: join(box.root, 'herdr'), env: { HOME: box.home } });
  env = { ...box.env, HERDR_SOCKET_PATH: herdr.socketPath, HERDR_ENV: '1', PATH: herdr.env.PATH };
  // The first workspace takes the focus; the ones under test do not.
  await ok('workspace.create', { cwd: box.home });
});

afterEach(async () => {
  await herdr.stop();
  await box.cleanup();
});

afterAll(removeScenarios);

describe('worktrees and their panes', () => {
  it('removes a landed worktree an idle shell shows and closes its workspace; an agent keeps its own', async () => {
    const agentTree = await landedWorktree('agent');
    const idleTree = await landedWorktree('idle');
    const agentPane = (await ok('workspace.create', { cwd: agentTree })).root_pane.pane_id;
    await ok('pane.report_agent', { pane_id: agentPane, source: 'test', agent: 'claude', state: 'idle' });
    const opened = await ok('worktree.open', { cwd: repo.main, path: idleTree });
    const idlePane: string = opened.root_pane.pane_id;
    await idle(idlePane);

    const result = await runCliIn(repo.main, ['prune', '--yes', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const report = PruneReportSchema.parse(JSON.parse(result.stdout));
    expect(report.results).toEqual([
      {
        kind: 'worktree',
        path: idleTree,
        branch: 'idle',
        branch_deleted: true,
        panes: [idlePane],
        already_removed: false,
        detail: '',
      },
    ]);
    expect(report.skipped).toEqual([]);
    expect(report.failures).toEqual([]);
    const workspaces = (await ok('workspace.list', {})).workspaces.map(
      (w: { workspace_id: string }) => w.workspace_id,
    );
    expect(workspaces).not.toContain(opened.workspace.workspace_id);
    expect(await livePanes()).toContain(agentPane);
    expect(await refSha(repo, 'refs/heads/agent')).not.toBeNull();
    expect(await refSha(repo, 'refs/heads/idle')).toBeNull();
  });

  it('keeps a worktree whose shell runs a command, with that as the reason', async () => {
    const busyTree = await landedWorktree('busy');
    const pane = (await ok('workspace.create', { cwd: busyTree })).root_pane.pane_id;
    await idle(pane);
    const port = await openTerminal({ env: herdr.env, home: box.home });
    await port.runLine(pane, 'sleep 30');
    await waitFor(
      'sleep running',
      async () => ((await probePrompt(port, pane)).state.kind === 'running' ? true : undefined),
      { timeoutMs: 10_000 },
    );
    const result = await runCliIn(repo.main, ['doctor', '--json'], env);
    const entry = JSON.parse(result.stdout).worktrees.find((w: { path: string }) => w.path === busyTree);
    expect(entry).toMatchObject({ removable: false, reason: `held: pane ${pane} runs sleep` });
    const pruned = await runCliIn(repo.main, ['prune', '--yes', '--json', 'worktrees'], env);
    expect(JSON.parse(pruned.stdout)).toEqual({ results: [], skipped: [], failures: [] });
    expect(await livePanes()).toContain(pane);
  });
});

describe('a pane that got busy after the plan', () => {
  it('in the workspace that shows the worktree keeps it whole: no teardown, no close, a skip', async () => {
    const tree = await landedWorktree('late');
    await repo.commit({ 'dogsled.toml': '[worktree]\nteardown = ["touch teardown-ran"]\n' }, 'config');
    const opened = await ok('worktree.open', { cwd: repo.main, path: tree });
    await idle(opened.root_pane.pane_id);
    const facts = await gatherTerminalFacts({ env: herdr.env, home: box.home, warn: () => {} });
    const io = cleanupIO(repo, { holds: facts.holds });
    const survey = await surveyCleanup(io, { processes: false, host: 'local' });
    const plan = selectPlan(survey.plan, ['worktrees']);
    expect(plan).toEqual([expect.objectContaining({ kind: 'worktree', path: tree })]);

    // After the plan, a pane opens in that workspace (outside the worktree) and runs something.
    const port = await openTerminal({ env: herdr.env, home: box.home });
    const late = await port.splitPane({
      targetPaneId: opened.root_pane.pane_id,
      direction: 'right',
      cwd: box.home,
    });
    await idle(late.pane_id);
    await port.runLine(late.pane_id, 'sleep 30');
    await waitFor(
      'sleep running',
      async () => ((await probePrompt(port, late.pane_id)).state.kind === 'running' ? true : undefined),
      { timeoutMs: 10_000 },
    );
    const report = await applyPlan(
      {
        ...io,
        closures: {
          port,
          paneContext: () => paneContext(io, null),
          worktreePanes: (path) => worktreePanes(port, path, null),
        },
      },
      survey,
      plan,
    );
    expect(report).toEqual({
      results: [],
      skipped: [{ kind: 'worktree', path: tree, branch: 'late', reason: `pane ${late.pane_id} runs sleep` }],
      failures: [],
    });
    expect(await refSha(repo, 'refs/heads/late')).not.toBeNull();
    expect((await repo.git(['-C', tree, 'status', '--porcelain'])).trim()).toBe('');
    expect(await livePanes()).toEqual(expect.arrayContaining([opened.root_pane.pane_id, late.pane_id]));
  });
});

describe('prune panes', () => {
  async function endedJob(id: string, pane: { pane_id: string; terminal_id: string }): Promise<void> {
    const record: JobRecord & { terminal_id: string } = {
      version: 1,
      id,
      command: ['make', 'test'],
      cwd: box.home,
      host: 'local',
      owner: null,
      pane: pane.pane_id,
      terminal_id: pane.terminal_id,
      created_ms: Date.now() - 60_000,
      started_ms: Date.now() - 59_000,
      ended_ms: Date.now() - 1_000,
      exit_code: 0,
      signal: null,
      reason: null,
    };
    await mkdir(join(box.state, 'jobs'), { recursive: true });
    await writeFile(join(box.state, 'jobs', `${id}.json`), JSON.stringify(record));
  }

  it("closes an empty shell whose job ended and keeps the caller's pane", async () => {
    const done = await ok('workspace.create', { cwd: box.home });
    const caller = await ok('workspace.create', { cwd: box.home });
    await idle(done.root_pane.pane_id);
    await idle(caller.root_pane.pane_id);
    await endedJob('j1', done.root_pane);
    await endedJob('j2', caller.root_pane);

    const result = await runCliIn(repo.main, ['prune', '--yes', '--json', 'panes'], {
      ...env,
      HERDR_PANE_ID: caller.root_pane.pane_id,
    });
    expect(result.code, result.stderr).toBe(0);
    const report = PruneReportSchema.parse(JSON.parse(result.stdout));
    expect(report).toEqual({
      results: [
        {
          kind: 'workspace',
          path: done.workspace.workspace_id,
          branch: null,
          branch_deleted: false,
          panes: [done.root_pane.pane_id],
          already_removed: false,
          detail: '',
        },
      ],
      skipped: [],
      failures: [],
    });
    const live = await livePanes();
    expect(live).not.toContain(done.root_pane.pane_id);
    expect(live).toContain(caller.root_pane.pane_id);
  });
});

describe('without Herdr', () => {
  it('prune still removes landed worktrees, and has no pane entries', async () => {
    const landed = await landedWorktree('landed');
    const result = await runCliIn(repo.main, ['prune', '--yes', '--json'], box.env);
    expect(result.code, result.stderr).toBe(0);
    expect(PruneReportSchema.parse(JSON.parse(result.stdout)).results).toEqual([
      expect.objectContaining({ kind: 'worktree', path: landed, panes: [] }),
    ]);
  });
});
