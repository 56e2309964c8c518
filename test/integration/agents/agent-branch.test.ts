// `--branch` from the command line for `agent`, `place` and `run`, in real repositories and the fake
// Herdr: the child starts in the pane of its worktree's new workspace, `place --branch` returns the
// worktree's path and pane, `run --branch` runs in the worktree, and every refusal leaves the
// repository (tree and refs, byte for byte), Herdr's panes and the state's launches as they were.

import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { PlacedBranchSchema } from '../../../cli/output-schemas.js';
import { runCli } from '../../helpers/cli.js';
import { freshRepo, type Repo, refSha, removeScenarios } from '../../helpers/git-scenarios.js';
import { registries, repoSnapshot, worktreeList } from '../cleanup/worktree-fixtures.js';
import {
  agentCli,
  agentSuite,
  items,
  type Json,
  launchFileNames,
  ok,
  onlyRecord,
  paneIds,
  quickTask,
  waitForNewLaunch,
} from './agent-fixtures.js';

// One fake Herdr for the file; each test has its own state dir and repository, and its panes close
// when it ends.
const suite = agentSuite({ share: 'herdr' });
let repo: Repo;

beforeEach(async () => {
  repo = await freshRepo();
});
afterAll(removeScenarios);

describe('agent --branch', () => {
  it.each(['pi', 'claude', 'codex'] as const)(
    'a %s child works in <dir>/<branch> in its own workspace, as a writer',
    async (kind) => {
      const branch = `feat/${kind}-unit`;
      const result = await agentCli(
        suite,
        ['--kind', kind, '--name', `w-${kind}`, '--branch', branch, '--json', '--message', quickTask()],
        { cwd: repo.main },
      );
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      const doc = JSON.parse(result.stdout);
      const path = join(repo.main, '.worktrees', `feat-${kind}-unit`);
      expect(doc).toMatchObject({ branch, worktree: path, cwd: path, role: 'writer' });
      expect(await worktreeList(repo)).toContainEqual({ path, branch, locked: 'agent:worktree' });
      const pane = (await ok(suite.herdr, 'pane.get', { pane_id: doc.pane })).pane;
      const workspace = (await ok(suite.herdr, 'workspace.get', { workspace_id: pane.workspace_id }))
        .workspace;
      expect(workspace.worktree).toMatchObject({ checkout_path: path, is_linked_worktree: true });
      expect(pane.workspace_id).not.toBe(suite.caller.workspace);
      const launch = await waitForNewLaunch(suite);
      expect(launch.cwd).toBe(path);
      expect((await items(suite))[0]).toMatchObject({ branch, worktree: path, role: 'writer' });
      const { repositories, worktrees } = await registries(repoIn(suite.box.state));
      expect(repositories.repositories).toEqual([expect.objectContaining({ path: repo.main })]);
      expect(worktrees.worktrees).toEqual([expect.objectContaining({ path, branch })]);
    },
  );

  it('a setup command that fails removes the new worktree and branch, and starts nothing', async () => {
    await writeFile(join(repo.main, 'dogsled.toml'), '[worktree]\nsetup = ["echo preparing; exit 7"]\n');
    await repo.commit({}, 'config');
    const refs = await repo.git(['for-each-ref']);
    const before = await paneIds(suite.herdr);
    const result = await agentCli(
      suite,
      ['--kind', 'pi', '--name', 'setup-fails', '--branch', 'feat/s', '--message', quickTask()],
      { cwd: repo.main },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^dogsled: agent: --branch feat\/s: .*removed the new worktree and branch feat\/s/,
    );
    expect(await refSha(repo, 'refs/heads/feat/s')).toBeNull();
    expect(await repo.git(['for-each-ref'])).toBe(refs);
    expect((await worktreeList(repo)).map((w) => w.path)).toEqual([repo.main]);
    expect(await paneIds(suite.herdr)).toEqual(before);
    expect(await launchFileNames(suite)).toEqual([]);
  });
});

/** The registries helper reads `<root>/state`: a stand-in repo whose root is the sandbox. */
function repoIn(state: string): Repo {
  return { root: join(state, '..') } as Repo;
}

describe('hostile names git accepts', () => {
  it('reach git, Herdr and the child as data: no shell runs what is in them', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${IFS}, which must stay text
    const branch = "it's;$(touch${IFS}pwned)`touch${IFS}pwned2`";
    const result = await agentCli(
      suite,
      ['--kind', 'claude', '--name', 'hostile', '--branch', branch, '--json', '--message', quickTask()],
      { cwd: repo.main },
    );
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const path = join(repo.main, '.worktrees', branch);
    expect(JSON.parse(result.stdout)).toMatchObject({ branch, worktree: path });
    expect(await refSha(repo, `refs/heads/${branch}`)).toBe(await repo.sha('main'));
    expect((await waitForNewLaunch(suite)).cwd).toBe(path);
    for (const dir of [repo.main, path, suite.scratch, suite.box.home]) {
      expect(existsSync(join(dir, 'pwned'))).toBe(false);
      expect(existsSync(join(dir, 'pwned2'))).toBe(false);
    }
  });
});

describe('every --branch refusal happens before any change', () => {
  // Names git itself refuses; the valid hostile names are started for real below.
  const hostile = ['a b', '-x', 'x $(touch pwned)', 'a\nb', 'feat/\u001b[31mred', 'a..b;c'];

  async function refusedWithoutChange(args: string[], message: RegExp, command = 'agent'): Promise<void> {
    const tree = await repoSnapshot(repo);
    const refs = await repo.git(['for-each-ref']);
    const panes = await paneIds(suite.herdr);
    const result = await runCli([command, ...args], suite.env, { cwd: repo.main, timeoutMs: 30_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(await repoSnapshot(repo)).toEqual(tree);
    expect(await repo.git(['for-each-ref'])).toBe(refs);
    expect(await paneIds(suite.herdr)).toEqual(panes);
    expect(await launchFileNames(suite)).toEqual([]);
    expect(await items(suite)).toEqual([]);
  }

  it.each(hostile)('agent refuses the branch name %j', async (branch) => {
    await refusedWithoutChange(
      ['--kind', 'pi', '--name', 'h', '--branch', branch, '--message', quickTask()],
      /^dogsled: agent: --branch ".*": /,
    );
  });

  it.each(['place', 'run'])('%s refuses a hostile branch name too', async (command) => {
    const extra = command === 'run' ? ['--', 'true'] : ['--json'];
    await refusedWithoutChange(
      ['--branch', 'a b;$(id)', ...extra],
      new RegExp(`^dogsled: ${command}: --branch `),
      command,
    );
  });

  it('--base for a branch that exists', async () => {
    await repo.branch('feat/old', [{ 'a.txt': 'x\n' }]);
    await refusedWithoutChange(
      ['--kind', 'pi', '--name', 'b', '--branch', 'feat/old', '--base', 'main', '--message', quickTask()],
      /--base main: branch feat\/old already exists/,
    );
  });

  it('the branch checked out in the main checkout', async () => {
    await refusedWithoutChange(
      ['--kind', 'claude', '--name', 'm', '--branch', 'main', '--message', quickTask()],
      /--branch main: it is checked out in the main checkout/,
    );
  });

  it('a worktree locked by someone else', async () => {
    await repo.worktree('feat/theirs', { lock: 'my own work' });
    await refusedWithoutChange(
      ['--kind', 'codex', '--name', 'l', '--branch', 'feat/theirs', '--message', quickTask()],
      /locked with reason "my own work", not by dogsled/,
    );
  });

  it('no reachable Herdr', async () => {
    const tree = await repoSnapshot(repo);
    const { HERDR_SOCKET_PATH: _s, HERDR_ENV: _e, ...env } = suite.env;
    const result = await runCli(
      ['agent', '--kind', 'pi', '--name', 'n', '--branch', 'feat/n', '--message', 't'],
      { ...env, HERDR_SOCKET_PATH: join(suite.box.root, 'no.sock') },
      { cwd: repo.main },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: agent needs Herdr or tmux \(|^dogsled: agent: /);
    expect(await repoSnapshot(repo)).toEqual(tree);
  });
});

describe('place and run with --branch', () => {
  it('place --branch returns the worktree path and its pane id', async () => {
    const result = await runCli(['place', '--json', '--branch', 'feat/p', '--repo', repo.main], suite.env);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const doc = PlacedBranchSchema.parse(JSON.parse(result.stdout));
    const path = join(repo.main, '.worktrees', 'feat-p');
    expect(doc).toMatchObject({ placed: true, host: 'local', path, branch: 'feat/p', created: true });
    const pane = (await ok(suite.herdr, 'pane.get', { pane_id: doc.pane_id })).pane as Json;
    expect(pane).toMatchObject({ cwd: path, workspace_id: doc.workspace });
    expect(await worktreeList(repo)).toContainEqual({ path, branch: 'feat/p', locked: 'agent:worktree' });
  });

  it('run --branch --wait runs the command in the worktree', async () => {
    const result = await runCli(['run', '--wait', '--branch', 'feat/r', '--', 'pwd'], suite.env, {
      cwd: repo.main,
      timeoutMs: 30_000,
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout.trim()).toBe(join(repo.main, '.worktrees', 'feat-r'));
    expect(await worktreeList(repo)).toContainEqual({
      path: join(repo.main, '.worktrees', 'feat-r'),
      branch: 'feat/r',
      locked: 'agent:worktree',
    });
  });

  it('--base and --repo need --branch', async () => {
    const place = await runCli(['place', '--repo', repo.main], suite.env);
    expect(place.stderr).toBe('dogsled: place: --repo needs --branch\n');
    const run = await runCli(['run', '--base', 'main', '--', 'true'], suite.env);
    expect(run.stderr).toBe('dogsled: run: --base needs --branch\n');
  });
});

describe('onlyRecord is the launch of a started branch child', () => {
  it('names the worktree and the anchor-free pane it started in', async () => {
    await ok(suite.herdr, 'workspace.create', { cwd: repo.main });
    const result = await agentCli(
      suite,
      ['--kind', 'pi', '--name', 'anch', '--branch', 'feat/a', '--message', quickTask()],
      { cwd: repo.main },
    );
    expect(result.code).toBe(0);
    const record = await onlyRecord(suite);
    expect(record).toMatchObject({ branch: 'feat/a', state: 'started' });
    expect(record.worktree).toBe(join(repo.main, '.worktrees', 'feat-a'));
  });
});
