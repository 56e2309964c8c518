// A late `host agent`: the caller's service ended the launch (`host admission` with `end`) before
// the launch here could begin. Arriving after the end, it is refused before any change; ended while
// it prepared (here: while its worktree's setup runs), it is refused at its record and leaves
// nothing it made: its task file, a worktree it created and a checkout it cloned go when they hold
// no work (the loss rule), while a checkout that was there before, or one holding work, stays.

import { execFileSync } from 'node:child_process';
import { access, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../../helpers/cli.js';
import { freshRepo, type Repo, removeScenarios } from '../../helpers/git-scenarios.js';
import { waitFor } from '../../helpers/wait.js';
import { agentSuite, ok } from '../agents/agent-fixtures.js';

const suite = agentSuite();
const LAUNCH = 'l_late0001';
const TICKET = 't_late0001';
const ITEM = 'i_late0001';

afterAll(() => removeScenarios());

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

function request(repo: Repo, branch: string | null) {
  const cwd = '/caller/src/proj';
  return {
    item: ITEM,
    request: {
      launch: LAUNCH,
      kind: 'claude',
      name: 'late',
      profile: null,
      branch,
      base: null,
      cwd,
      caller_workspace: null,
    },
    task: 'Never starts.',
    place: {
      cwd,
      home_relative: 'src/proj',
      checkout: { top: cwd, top_home_relative: 'src/proj', origin: repo.remote },
    },
    owner: 'w1:p1',
    ticket: TICKET,
    reservation: null,
    max_ms: 120_000,
  };
}

/** What the caller's service sends when it gives the launch up: the launch record ended here. */
async function endLaunch(repo: Repo, branch: string | null): Promise<void> {
  const ask = {
    ticket: TICKET,
    item: ITEM,
    owner: 'w1:p1',
    reservation: null,
    job: null,
    agent: request(repo, branch).request,
    end: 'the service stopped while launching it',
  };
  const ended = await runCli(['host', 'admission'], suite.env, { input: JSON.stringify(ask) });
  expect(ended.code, ended.stderr).toBe(0);
  expect(JSON.parse(ended.stdout)).toMatchObject({ state: 'not-started' });
}

/** The origin's default branch gets a setup that waits for `go` (the test ends the launch meanwhile). */
async function waitingSetup(repo: Repo, extra = ''): Promise<string> {
  const dir = join(suite.box.root, 'setup');
  execFileSync('mkdir', ['-p', dir]);
  const line = `touch ${dir}/in-setup; while [ ! -e ${dir}/go ]; do sleep 0.05; done${extra}`;
  await writeFile(join(repo.main, 'dogsled.toml'), `[worktree]\nsetup = [${JSON.stringify(line)}]\n`);
  await writeFile(join(repo.main, '.gitignore'), '.worktrees/\n');
  await repo.git(['add', 'dogsled.toml', '.gitignore']);
  await repo.git(['commit', '-q', '-m', 'waiting setup']);
  await repo.push('main');
  return dir;
}

/** `host agent` for `feat/late`, ended by its owner while its worktree's setup runs. */
async function endedMidLaunch(repo: Repo, extra = '', ready?: string) {
  const dir = ready ?? (await waitingSetup(repo, extra));
  const launch = spawnCli(['host', 'agent'], suite.env, {
    input: JSON.stringify(request(repo, 'feat/late')),
    timeoutMs: 90_000,
  });
  await waitFor('the setup', async () => (await exists(join(dir, 'in-setup'))) || undefined, {
    timeoutMs: 60_000,
  });
  await endLaunch(repo, 'feat/late');
  await writeFile(join(dir, 'go'), '');
  const result = await launch.done;
  expect(result.code, result.stderr).toBe(2);
  return result;
}

/** The refusal at the record, after whatever the undoing warned. */
const TAKEN = /^dogsled: host: launch l_late0001 already has a record\n$/;

const clonePath = () => join(suite.box.home, 'src', 'proj');
const worktreePath = () => join(clonePath(), '.worktrees', 'feat-late');
const launchFilesLeft = async () => (await readdir(join(suite.box.state, 'launches'))).sort();
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' });
const shownIn = async (path: string) =>
  ((await ok(suite.herdr, 'workspace.list')).workspaces as Array<{ worktree?: { checkout_path?: string } }>)
    .map((ws) => ws.worktree?.checkout_path)
    .filter((shown) => shown === path);

describe('a late host agent leaves nothing behind', { timeout: 120_000 }, () => {
  it('arriving after its launch was ended: refused before it clones or writes anything', async () => {
    const repo = await freshRepo();
    await endLaunch(repo, null);
    const result = await runCli(['host', 'agent'], suite.env, { input: JSON.stringify(request(repo, null)) });
    expect(result.code).toBe(2);
    expect(await exists(clonePath())).toBe(false);
    expect(await launchFilesLeft()).toEqual([`${LAUNCH}.json`]);
    expect(result.stderr).toBe(
      'dogsled: host agent: launch l_late0001 was ended: the service stopped while launching it\n',
    );
  });

  it('ended while it prepared: the worktree it created and the checkout it cloned go, holding no work', async () => {
    const repo = await freshRepo();
    const result = await endedMidLaunch(repo);
    expect(await exists(worktreePath())).toBe(false);
    expect(await exists(clonePath())).toBe(false);
    expect(await launchFilesLeft()).toEqual([`${LAUNCH}.json`]);
    expect(await shownIn(worktreePath())).toEqual([]);
    expect(result.stderr).toMatch(TAKEN);
  });

  it('ended while it prepared in a checkout that was there: its worktree and branch go, the checkout stays', async () => {
    const repo = await freshRepo();
    const ready = await waitingSetup(repo);
    execFileSync('mkdir', ['-p', join(suite.box.home, 'src')]);
    execFileSync('git', ['clone', '-q', repo.remote, clonePath()]);
    const result = await endedMidLaunch(repo, '', ready);
    expect(await exists(worktreePath())).toBe(false);
    expect(git(clonePath(), 'worktree', 'list', '--porcelain')).not.toContain('feat-late');
    expect(git(clonePath(), 'branch', '--list', 'feat/late')).toBe('');
    expect(git(clonePath(), 'status', '--porcelain')).toBe('');
    expect(git(clonePath(), 'rev-parse', 'HEAD').trim()).toBe(git(repo.main, 'rev-parse', 'HEAD').trim());
    expect(await launchFilesLeft()).toEqual([`${LAUNCH}.json`]);
    expect(result.stderr).toMatch(TAKEN);
  });

  it('ended while it prepared, its setup having left a file: the worktree and its clone stay', async () => {
    const repo = await freshRepo();
    const result = await endedMidLaunch(repo, '; echo made > left-by-setup.txt');
    expect(await exists(join(worktreePath(), 'left-by-setup.txt'))).toBe(true);
    expect(await exists(clonePath())).toBe(true);
    expect(await launchFilesLeft()).toEqual([`${LAUNCH}.json`]);
    expect(result.stderr).toMatch(
      /^dogsled: warning: agent: worktree .*feat-late stays: .*uncommitted changes/m,
    );
    expect(result.stderr).toMatch(
      /^dogsled: warning: host agent: checkout .* stays: it has other worktrees$/m,
    );
    expect(result.stderr).toMatch(/^dogsled: host: launch l_late0001 already has a record\n$/m);
  });
});
