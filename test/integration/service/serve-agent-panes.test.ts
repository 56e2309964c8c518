// The terminal layer end to end: three fake agents run in real panes of the fake Herdr, `dogsled
// serve` publishes their panes with state, name, transcript and checkout facts, `status` shows them,
// and an agent whose transcript stops changing is reported stalled, then recovers when it changes.

import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostSnapshotSchema } from '../../../service/state/schemas/host-schemas.js';
import { FAKE_AGENTS_BIN, readLaunches, writeTaskFile } from '../../fakes/agents/harness.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { exited, runCli, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let herdr: FakeHerdr;
let env: NodeJS.ProcessEnv;
let repo: string;
let worktree: string;
let logDir: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });
}

beforeEach(async () => {
  box = await sandbox();
  logDir = join(box.root, 'agent-log');
  repo = join(box.home, 'src', 'app');
  worktree = join(repo, '.worktrees', 'feat-x');
  await mkdir(repo, { recursive: true });
  git(repo, '-c', 'init.defaultBranch=main', 'init', '-q');
  await writeFile(join(repo, 'README.md'), 'app\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  git(repo, 'worktree', 'add', '-q', '-b', 'feat/x', worktree);
  await writeFile(join(worktree, 'feature.txt'), 'one\n');
  git(worktree, 'add', '.');
  git(worktree, 'commit', '-qm', 'feature');
  await writeFile(join(worktree, 'notes.txt'), 'uncommitted\n');
  herdr = await startFakeHerdr({
    dir: box.root,
    env: { HOME: box.home, PATH: `${FAKE_AGENTS_BIN}:${process.env.PATH ?? ''}`, FAKE_AGENT_LOG_DIR: logDir },
  });
  env = {
    ...box.env,
    HERDR_SOCKET_PATH: herdr.socketPath,
    HERDR_ENV: '1',
    PATH: herdr.env.PATH,
    DOGSLED_TEST_STALL_MS: '1500',
  };
});

afterEach(async () => {
  await herdr.stop();
  await box.cleanup();
});

async function ok(method: string, params: Record<string, unknown>) {
  const reply = await herdr.call(method, params);
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

/** Starts a named fake agent in a new workspace at `cwd` and waits until Herdr shows its session. */
async function startAgent(name: string, kind: string, cwd: string, steps: unknown[]): Promise<string> {
  const { root_pane } = await ok('workspace.create', { cwd });
  const task = await writeTaskFile(join(box.root, 'tasks', `${name}.task.md`), { script: steps as never });
  const args = kind === 'pi' ? [`@${task}`] : [`Read the task in ${task}`];
  await ok('agent.start', { name, kind, pane_id: root_pane.pane_id, args });
  await waitFor(`${name} reporting its session`, async () => {
    const { agent } = await ok('agent.get', { target: name });
    return agent.agent_session && agent.agent === kind ? agent : undefined;
  });
  return root_pane.pane_id as string;
}

async function hostSnapshot() {
  return HostSnapshotSchema.parse(JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8')));
}

describe('agent panes in the snapshot', () => {
  it('publishes three agents with state, name, transcript and worktree facts, and status shows them', async () => {
    const claudePane = await startAgent('writer', 'claude', worktree, [{ reply: 'Feature done.' }]);
    await startAgent('tester', 'codex', repo, [{ hang: true }]);
    await startAgent('reader', 'pi', box.home, [{ ask: 'Which file?' }]);
    const shell = (await ok('workspace.create', { cwd: box.home })).root_pane;
    await waitFor('the writer finishing its turn', async () => {
      const { agent } = await ok('agent.get', { target: 'writer' });
      return agent.agent_status === 'idle' || agent.agent_status === 'done' ? agent : undefined;
    });

    const served = await runCli(['serve', '--once'], env, { timeoutMs: 30_000 });
    expect(served.stderr).toBe('');
    expect(served.code).toBe(0);
    const snapshot = await hostSnapshot();
    const panes = snapshot.probe.agent_panes ?? [];
    const launches = await readLaunches(logDir);
    const byName = new Map(panes.map((pane) => [pane.name, pane]));
    expect([...byName.keys()].sort()).toEqual(['reader', 'tester', 'writer']);

    const writer = byName.get('writer');
    const writerLaunch = launches.find((l) => l.kind === 'claude');
    expect(writer).toMatchObject({
      pane: claudePane,
      agent: 'claude',
      transcript: writerLaunch?.transcript,
      cwd: worktree,
      model: writerLaunch?.model,
      branch: 'feat/x',
      ahead: 1,
      dirty: true,
      landed: false,
      stalled_since_ms: null,
    });
    expect(['idle', 'done']).toContain(writer?.state);
    expect(writer?.activity?.text).toBe('Feature done.');
    expect(writer?.transcript_modified).toBeGreaterThan(0);
    expect(byName.get('tester')).toMatchObject({
      agent: 'codex',
      state: 'working',
      branch: 'main',
      ahead: 0,
    });
    expect(byName.get('reader')).toMatchObject({ agent: 'pi', state: 'blocked', branch: null });
    expect(snapshot.probe.agents).toEqual({ live: 3, active: 2 });
    expect(snapshot.headroom).toMatchObject({ live_agents: 3, active_agents: 2 });
    expect(snapshot.errors).toEqual([]);
    // The plain shell is not an agent pane; its empty-prompt clock goes to pane-watch.json.
    const watch = JSON.parse(await readFile(join(box.state, 'pane-watch.json'), 'utf8'));
    expect(watch.panes[shell.terminal_id]).toMatchObject({ pane: shell.pane_id });
    expect(watch.panes[shell.terminal_id].empty_since_ms).toBeGreaterThan(0);

    // Squash-merged into main, the branch has landed by the loss rule although it is still ahead.
    git(repo, 'merge', '--squash', '-q', 'feat/x');
    git(repo, 'commit', '-qm', 'feature (squash)');
    expect((await runCli(['serve', '--once'], env, { timeoutMs: 30_000 })).code).toBe(0);
    const after = (await hostSnapshot()).probe.agent_panes?.find((pane) => pane.name === 'writer');
    expect(after).toMatchObject({ branch: 'feat/x', ahead: 1, landed: true });

    const status = await runCli(['status'], env);
    expect(status.stdout).toContain('3 live · 2 active');
    // The panes are listed under the agents line, the backend's line before it.
    expect(status.stdout).toMatch(
      /\n {2}terminal {2}herdr \(socket\)\n {2}agents {4}3 live · 2 active[^\n]*\n {4}w\d+:p\d+ /,
    );
    expect(status.stdout).toMatch(/claude writer\s+(idle|done) \S+\s+feat\/x \+1 dirty landed/);
    // The second run restored the first run's clocks, so the hung tester may already show as stalled.
    expect(status.stdout).toMatch(/codex tester\s+(working|stalled)/);
  });

  it('marks an agent whose transcript stops changing as stalled, and clears it when it changes', async () => {
    await startAgent('tester', 'codex', repo, [{ hang: true }]);
    const service = startCli(['serve', '--interval', '1'], env);
    try {
      const stalled = await waitFor(
        'the hung agent to stall',
        async () => {
          const pane = (await hostSnapshot()).probe.agent_panes?.find((p) => p.name === 'tester');
          return pane?.stalled_since_ms ? pane : undefined;
        },
        { timeoutMs: 15_000 },
      );
      expect(stalled.state).toBe('working');
      // The sidebar's $dogsled token says so while the stall lasts.
      const tokens = async () => (await ok('pane.get', { pane_id: stalled.pane })).pane.tokens ?? {};
      await waitFor('the token', async () => ((await tokens()).dogsled === 'stalled' ? true : undefined), {
        timeoutMs: 10_000,
      });
      const status = await runCli(['status'], env);
      expect(status.stdout).toMatch(/codex tester\s+stalled/);
      expect(status.stdout).toContain('1 stalled');
      expect((await runCli(['status', '--brief'], env)).stdout).toContain(
        'agents 1 live, 1 active, 1 stalled',
      );

      await appendFile(stalled.transcript ?? '', `${JSON.stringify({ type: 'event_msg', payload: {} })}\n`);
      await waitFor(
        'the stall to clear',
        async () => {
          const pane = (await hostSnapshot()).probe.agent_panes?.find((p) => p.name === 'tester');
          return pane && pane.stalled_since_ms === null ? pane : undefined;
        },
        { timeoutMs: 15_000 },
      );
      await waitFor('no token', async () => ((await tokens()).dogsled === undefined ? true : undefined), {
        timeoutMs: 10_000,
      });
    } finally {
      service.kill('SIGTERM');
      await exited(service);
    }
  });

  it('publishes the snapshot with the Herdr error when the socket refuses', async () => {
    await herdr.stop();
    const served = await runCli(['serve', '--once'], env, { timeoutMs: 30_000 });
    expect(served.code).toBe(0);
    const snapshot = await hostSnapshot();
    expect(snapshot.probe.agent_panes).toEqual([]);
    expect(snapshot.errors).toHaveLength(1);
    expect(snapshot.errors[0]).toMatch(/^herdr: /);
    expect(snapshot.errors[0]).toContain(herdr.socketPath);
  });

  it('publishes on time with the Herdr error when Herdr answers garbage or too slowly', async () => {
    await startAgent('writer', 'claude', worktree, [{ reply: 'done' }]);
    await ok('_fake.fail_next', { method: 'session.snapshot', malformed: 'garbage' });
    expect((await runCli(['serve', '--once'], env, { timeoutMs: 30_000 })).code).toBe(0);
    let snapshot = await hostSnapshot();
    expect(snapshot.errors).toHaveLength(1);
    expect(snapshot.errors[0]).toMatch(/^herdr: .*session\.snapshot/);
    expect(snapshot.probe.agent_panes).toEqual([]);

    await ok('_fake.fail_next', { method: 'session.snapshot', delay_ms: 8_000 });
    expect((await runCli(['serve', '--once', '--interval', '2'], env, { timeoutMs: 30_000 })).code).toBe(0);
    snapshot = await hostSnapshot();
    expect(snapshot.errors).toEqual(['herdr: no answer within 2s; agent panes are from the last tick']);
  });
});
