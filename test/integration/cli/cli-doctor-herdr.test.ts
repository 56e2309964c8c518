// `dogsled doctor` with the fake Herdr (real shells in real PTYs) and real repositories: the
// workspaces and panes sections, a worktree an agent pane works in held with the pane's reason, an
// idle shell that holds nothing, a Herdr that refuses (every worktree held) and no Herdr at all.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReportSchema } from '../../../service/cleanup/doctor-report.js';
import { probePrompt } from '../../../service/probe/shell-panes.js';
import { openTerminal } from '../../../service/terminal/open.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { edit, freshRepo, type Repo, removeScenarios, runCliIn } from '../../helpers/git-scenarios.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let repo: Repo;
let herdr: FakeHerdr;
let env: NodeJS.ProcessEnv;
let agentTree: string;
let idleTree: string;
let agentPane: string;
let idlePane: string;
let idleWorkspace: string;

async function ok(method: string, params: Record<string, unknown>) {
  const reply = await herdr.call(method, params);
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

/** A landed worktree: its one commit squashed into main and pushed. */
async function landedWorktree(name: string): Promise<string> {
  const path = await repo.worktree(name);
  await repo.commit({ [`${name}.txt`]: `${name}\n` }, name, path);
  await repo.squash(name);
  return path;
}

beforeAll(async () => {
  box = await sandbox();
  repo = await freshRepo();
  agentTree = await landedWorktree('agent');
  idleTree = await landedWorktree('idle');
  await repo.commit({ 'a.txt': edit('a', 1, 'A1') }, 'more');
  herdr = await startFakeHerdr({ dir: join(box.root, 'herdr'), env: { HOME: box.home } });
  env = { ...box.env, HERDR_SOCKET_PATH: herdr.socketPath, HERDR_ENV: '1', PATH: herdr.env.PATH };
  // The first workspace takes the focus; the ones under test do not.
  await ok('workspace.create', { cwd: box.home });
  agentPane = (await ok('workspace.create', { cwd: agentTree })).root_pane.pane_id;
  await ok('pane.report_agent', { pane_id: agentPane, source: 'test', agent: 'claude', state: 'idle' });
  const opened = await ok('worktree.open', { cwd: repo.main, path: idleTree });
  idlePane = opened.root_pane.pane_id;
  idleWorkspace = opened.workspace.workspace_id;
  const port = await openTerminal({ env: herdr.env, home: box.home });
  await waitFor(
    'the idle shell at its prompt',
    async () => ((await probePrompt(port, idlePane)).state.kind === 'empty' ? true : undefined),
    { timeoutMs: 10_000 },
  );
}, 60_000);

afterAll(async () => {
  await herdr?.stop();
  await box?.cleanup();
  await removeScenarios();
});

describe('doctor with Herdr', () => {
  it('lists workspaces and panes, holds the worktree an agent works in, and not the one an idle shell shows', async () => {
    const result = await runCliIn(repo.main, ['doctor', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const report = DoctorReportSchema.parse(JSON.parse(result.stdout));
    const worktree = (path: string) => report.worktrees.find((entry) => entry.path === path);
    expect(worktree(agentTree)).toMatchObject({
      state: 'kept',
      removable: false,
      reason: `held: pane ${agentPane} runs claude`,
      holds: [{ kind: 'pane', reason: `pane ${agentPane} runs claude` }],
    });
    expect(worktree(idleTree)).toMatchObject({ state: 'removable', holds: [] });

    expect(report.panes?.find((pane) => pane.pane === agentPane)).toMatchObject({
      agent: 'claude',
      program: 'claude',
      cwd: agentTree,
      removable: false,
    });
    expect(report.panes?.find((pane) => pane.pane === idlePane)).toMatchObject({
      agent: null,
      program: 'sh',
      cwd: idleTree,
      removable: false,
    });
    expect(report.workspaces?.find((entry) => entry.workspace === idleWorkspace)).toMatchObject({
      removable: false,
      reason: `closes with worktree ${idleTree}`,
      panes: [{ pane: idlePane }],
    });
    expect(report.warnings).toEqual([]);
    // Doctor changes nothing.
    const panes = (await ok('pane.list', {})).panes.map((pane: { pane_id: string }) => pane.pane_id);
    expect(panes).toEqual(expect.arrayContaining([agentPane, idlePane]));
  });

  it('shows the workspaces and panes sections to people within 80 columns', async () => {
    const result = await runCliIn(repo.main, ['doctor'], env);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines).toContain('workspaces');
    expect(lines).toContain('panes');
    expect(lines.some((line) => line.startsWith(`  keep    ${agentPane} claude in`))).toBe(true);
    expect(lines.some((line) => line.includes(`held: pane ${agentPane} runs claude`))).toBe(true);
  });
});

describe('doctor when Herdr cannot be read', () => {
  it('warns, and holds every worktree because live panes cannot be ruled out', async () => {
    // A socket nobody listens on: connecting is refused.
    const stale = join(box.root, 'stale.sock');
    execFileSync('python3', [
      '-c',
      'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])',
      stale,
    ]);
    const result = await runCliIn(repo.main, ['doctor', '--json'], { ...box.env, HERDR_SOCKET_PATH: stale });
    expect(result.code, result.stderr).toBe(0);
    const report = DoctorReportSchema.parse(JSON.parse(result.stdout));
    expect(report.panes).toBeNull();
    expect(report.workspaces).toBeNull();
    expect(report.warnings).toEqual([
      expect.stringMatching(/^herdr: socket .*stale\.sock refused the connection.*every checkout is held$/),
    ]);
    expect(result.stderr).toContain('dogsled: warning: herdr: socket');
    for (const path of [agentTree, idleTree]) {
      const entry = report.worktrees.find((worktree) => worktree.path === path);
      expect(entry?.removable).toBe(false);
      // First the unread panes; then the processes that Herdr's panes run there (no pane facts).
      expect(entry?.holds[0]).toEqual({
        kind: 'pane',
        reason: expect.stringMatching(/^Herdr panes could not be read: socket .*refused the connection/),
      });
    }
  });
});

describe('doctor without Herdr', () => {
  it('has null workspaces and panes and no warning; processes still hold what they work in', async () => {
    const result = await runCliIn(repo.main, ['doctor', '--json'], box.env);
    expect(result.code, result.stderr).toBe(0);
    const report = DoctorReportSchema.parse(JSON.parse(result.stdout));
    expect(report.panes).toBeNull();
    expect(report.workspaces).toBeNull();
    expect(report.warnings).toEqual([]);
    // Herdr's own pane hosts work in the worktrees; without Herdr's pane facts they are processes.
    expect(report.worktrees.find((entry) => entry.path === idleTree)?.holds.map((hold) => hold.kind)).toEqual(
      expect.arrayContaining(['process']),
    );
  });
});
