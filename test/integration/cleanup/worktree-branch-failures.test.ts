// `--branch` when things go wrong around it: the repository's lock held by a live or frozen
// process, a registry that cannot be written, Herdr failing after the worktree was made, setup
// running out of the command's --max, and a repository reached through a symbolic link.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repositoryLockPath } from '../../../service/cleanup/locks.js';
import { statePaths } from '../../../service/state/paths.js';
import { Deadline } from '../../../service/time/deadline.js';
import { ensureBranchWorktree } from '../../../service/worktrees/branch-worktree.js';
import type { FakeHerdr } from '../../fakes/herdr/harness.js';
import { ROOT } from '../../helpers/cli.js';
import { type Repo, refSha } from '../../helpers/git-scenarios.js';
import {
  depsFor,
  ensure,
  registries,
  repoSnapshot,
  workspaces,
  worktreeList,
  worktreeSuite,
} from './worktree-fixtures.js';

const suite = worktreeSuite('dogsled-branch-failures-');
let herdr: FakeHerdr;
let repo: Repo;
const holders: ChildProcess[] = [];

beforeEach(() => {
  ({ herdr, repo } = suite);
});
afterEach(() => {
  for (const holder of holders.splice(0)) {
    holder.kill('SIGCONT');
    holder.kill('SIGKILL');
  }
});

/** Another process holding the repository's lock the way dogsled's lock module takes it. */
async function holdRepositoryLock(): Promise<ChildProcess> {
  const file = repositoryLockPath(statePaths(join(repo.root, 'state')), join(repo.main, '.git'));
  await mkdir(join(file, '..'), { recursive: true });
  const script = `require('proper-lockfile').lock(${JSON.stringify(file)}, { realpath: false, stale: 3e11, update: 5000 })
    .then(() => { process.stdout.write('held\\n'); setInterval(() => {}, 1e9); })`;
  const holder = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  holders.push(holder);
  await new Promise<void>((resolve, reject) => {
    holder.stdout?.once('data', () => resolve());
    holder.once('exit', (code) => reject(new Error(`lock holder exited ${code}`)));
  });
  return holder;
}

describe('the repository lock', () => {
  it.each([
    ['alive', false],
    ['frozen with SIGSTOP', true],
  ])(
    'held by another process (%s) makes the request wait, then fail in one line with nothing changed',
    async (_what, freeze) => {
      const holder = await holdRepositoryLock();
      if (freeze) holder.kill('SIGSTOP');
      const before = await repoSnapshot(repo);
      const error = await ensure(repo, herdr, 'feat/locked', undefined, { lockTimeoutMs: 1_500 }).catch(
        (e: Error) => e,
      );
      expect((error as Error).message).toMatch(
        new RegExp(
          `^repository ${repo.main} is busy: lock on repository-[0-9a-f]+: timed out after 1s: another dogsled process holds it$`,
        ),
      );
      expect(await repoSnapshot(repo)).toEqual(before);
      expect(await registries(repo)).toEqual({ repositories: null, worktrees: null });

      holder.kill('SIGCONT');
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
      await rm(`${repositoryLockPath(statePaths(join(repo.root, 'state')), join(repo.main, '.git'))}.lock`, {
        recursive: true,
        force: true,
      });
      expect((await ensure(repo, herdr, 'feat/locked')).created).toBe(true);
    },
  );
});

describe('a registry that cannot be written', () => {
  it('stops the request before git makes anything', async () => {
    await mkdir(join(repo.root, 'state', 'worktrees.json'), { recursive: true });
    const before = await repoSnapshot(repo);
    const error = await ensure(repo, herdr, 'feat/reg').catch((e: Error) => e);
    expect((error as Error).message).toMatch(
      /^cannot (record the worktree in worktrees\.json|read \S*\/worktrees\.json): /,
    );
    expect((error as Error).message).not.toContain('\n');
    expect(await repoSnapshot(repo)).toEqual(before);
    expect(await refSha(repo, 'refs/heads/feat/reg')).toBeNull();
  });
});

describe('Herdr failing after the worktree was made', () => {
  it('keeps the set-up worktree, says so, and the next request reuses it without setup', async () => {
    await writeFile(
      join(repo.main, 'dogsled.toml'),
      '[worktree]\nsetup = ["echo ran >> {main}/setup-runs"]\n',
    );
    await herdr.call('_fake.fail_next', {
      method: 'worktree.open',
      code: 'worktree_open_failed',
      message: 'boom',
    });
    const path = join(repo.main, '.worktrees', 'feat-h');
    const error = await ensure(repo, herdr, 'feat/h').catch((e: Error) => e);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^--branch feat/h: .*boom.*; the worktree ${path} stays, set up, and the next call reuses it$`,
      ),
    );
    expect(await worktreeList(repo)).toContainEqual({ path, branch: 'feat/h', locked: 'agent:worktree' });
    expect((await registries(repo)).worktrees.worktrees).toEqual([expect.objectContaining({ path })]);

    const again = await ensure(repo, herdr, 'feat/h');
    expect(again).toMatchObject({ path, created: false });
    expect(await readFile(join(repo.main, 'setup-runs'), 'utf8')).toBe('ran\n');
  });
});

describe('setup and the command’s --max', () => {
  it('a setup that outlives the deadline is stopped, and what was made is removed', async () => {
    await writeFile(join(repo.main, 'dogsled.toml'), '[worktree]\nsetup = ["sleep 30"]\n');
    const open = (await workspaces(herdr)).length;
    // Room for making the worktree on a loaded machine: setup gets what the deadline has left,
    // which the message names (3s, or 2s after a slow checkout).
    const error = await ensure(repo, herdr, 'feat/slow', undefined, { deadline: new Deadline(4_000) }).catch(
      (e: Error) => e,
    );
    expect((error as Error).message).toMatch(
      /^--branch feat\/slow: setup command timed out \((\d+s|\d+ms) for all setup commands\): sleep 30; removed the new worktree and branch feat\/slow$/,
    );
    expect(existsSync(join(repo.main, '.worktrees', 'feat-slow'))).toBe(false);
    expect(await refSha(repo, 'refs/heads/feat/slow')).toBeNull();
    expect((await workspaces(herdr)).length).toBe(open);
  });
});

describe('a repository reached through a symbolic link', () => {
  it('is the same repository: one lock, and Herdr finds the worktree it was asked to open', async () => {
    const link = join(repo.root, 'link');
    await symlink(repo.main, link);
    const { deps } = depsFor(repo, herdr);
    const result = await ensureBranchWorktree({ repo: link, branch: 'feat/link', command: 'agent' }, deps);
    expect(result.created).toBe(true);
    const pane = (await herdr.call('pane.get', { pane_id: result.pane })).result.pane;
    expect(pane.cwd).toBe(join(repo.main, '.worktrees', 'feat-link'));
    const again = await ensureBranchWorktree(
      { repo: link, branch: 'feat/link', command: 'agent' },
      deps,
    ).catch((e: Error) => e);
    expect((again as Error).message).toMatch(/is already open in Herdr workspace/);
  });
});
