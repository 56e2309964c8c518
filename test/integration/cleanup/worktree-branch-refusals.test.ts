// Every refusal of `--branch` (spec, "Repository configuration", step 1, and what follows from
// steps 2 and 5) happens before any change: the repository and its remote are compared byte for byte,
// no registry is written and no Herdr workspace appears. Each refusal is one line naming the flag.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { DogsledError } from '../../../service/core/common/errors.js';
import type { FakeHerdr } from '../../fakes/herdr/harness.js';
import type { Repo } from '../../helpers/git-scenarios.js';
import { tempDir } from '../../helpers/tree.js';
import { ensure, registries, repoSnapshot, workspaces, worktreeSuite } from './worktree-fixtures.js';

const suite = worktreeSuite('dogsled-branch-refusals-');
let dir: string;
let herdr: FakeHerdr;
let repo: Repo;

beforeEach(() => {
  ({ dir, herdr, repo } = suite);
});

/** Runs the request, expects a one-line DogsledError, and checks that nothing changed. */
async function refused(request: () => Promise<unknown>, message: string | RegExp): Promise<void> {
  const before = await repoSnapshot(repo);
  const open = (await workspaces(herdr)).length;
  const error = await request().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DogsledError);
  const text = (error as Error).message;
  expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  expect(text).toMatch(message);
  expect(await repoSnapshot(repo)).toEqual(before);
  expect(await registries(repo)).toEqual({ repositories: null, worktrees: null });
  expect((await workspaces(herdr)).length).toBe(open);
}

describe('--branch refuses, before any change,', () => {
  it.each([
    ['a b'],
    ['-x'],
    ['--help'],
    ['@{-1}'],
    ['a..b'],
    ['feat/x.lock'],
    ['HEAD'],
    [''],
    ['a\nb'],
    ['feat/\u001b[31mred'],
    ['x\u009b2J'],
  ])('the invalid branch name %j', async (branch) => {
    await refused(
      () => ensure(repo, herdr, branch),
      /^--branch ".*": (git does not accept it as a branch name|git reads it as ".*"|it contains a control character)$/,
    );
  });

  it('a name that git would rewrite (@{-1} after a checkout)', async () => {
    await repo.on('other', async () => {}, 'main');
    await refused(() => ensure(repo, herdr, '@{-1}'), '--branch "@{-1}": git reads it as "other"');
  });

  it('--base for a branch that exists, locally or on origin', async () => {
    await repo.branch('feat/local', [{ 'a.txt': 'x\n' }]);
    await refused(
      () => ensure(repo, herdr, 'feat/local', 'main'),
      '--base main: branch feat/local already exists; leave out --base to use it as it is',
    );
    await repo.branch('feat/remote', [{ 'a.txt': 'y\n' }]);
    await repo.push('feat/remote');
    await repo.git(['branch', '-D', 'feat/remote']);
    await refused(
      () => ensure(repo, herdr, 'feat/remote', 'main'),
      '--base main: branch feat/remote already exists on origin; leave out --base to use it as it is',
    );
  });

  it('the branch checked out in the main checkout', async () => {
    await refused(
      () => ensure(repo, herdr, 'main'),
      `--branch main: it is checked out in the main checkout ${repo.main}; an agent needs a branch of its own`,
    );
  });

  it('a worktree with another lock, with or without a reason', async () => {
    const held = await repo.worktree('held', { lock: 'mine: do not touch' });
    await refused(
      () => ensure(repo, herdr, 'held'),
      `--branch held: its worktree ${held} is locked with reason "mine: do not touch", not by dogsled`,
    );
    const bare = await repo.worktree('bare-lock');
    await repo.git(['worktree', 'lock', bare]);
    await refused(
      () => ensure(repo, herdr, 'bare-lock'),
      `--branch bare-lock: its worktree ${bare} is locked without a reason, not by dogsled`,
    );
  });

  it('a worktree whose directory is gone', async () => {
    const gone = await repo.worktree('gone');
    await rm(gone, { recursive: true, force: true });
    await refused(
      () => ensure(repo, herdr, 'gone'),
      new RegExp(
        `^--branch gone: its worktree ${gone} is missing \\(.+\\); run git worktree prune or restore it$`,
      ),
    );
  });

  it('a worktree that a Herdr workspace already shows', async () => {
    const shown = await repo.worktree('shown', { lock: 'agent:worktree' });
    const ws = (await herdr.call('workspace.create', { cwd: shown })).result.workspace.workspace_id;
    await refused(
      () => ensure(repo, herdr, 'shown'),
      `--branch shown: its worktree ${shown} is already open in Herdr workspace ${ws}, which may belong to a running child`,
    );
    await herdr.call('workspace.close', { workspace_id: ws });
  });

  it('a new worktree path that is taken by a directory or by another branch with the same slug', async () => {
    const taken = join(repo.main, '.worktrees', 'feat-z');
    await mkdir(taken, { recursive: true });
    await refused(
      () => ensure(repo, herdr, 'feat/z'),
      `--branch feat/z: cannot make its worktree at ${taken}: a directory is already there`,
    );
    await rm(taken, { recursive: true });
    const other = await repo.worktree('feat-w');
    await refused(
      () => ensure(repo, herdr, 'feat/w'),
      `--branch feat/w: cannot make its worktree at ${other}: git already has a worktree there (branch feat-w)`,
    );
  });

  it('a --base that names no commit, option-like ones included', async () => {
    for (const base of ['nope', '-x', '--all', 'main..side', '']) {
      await refused(
        () => ensure(repo, herdr, 'feat/n', base),
        `--base ${base}: not a commit in this repository`,
      );
    }
    await refused(
      () => ensure(repo, herdr, 'feat/n', 'main\u001b[2J'),
      '--base "main": it contains a control character',
    );
  });

  it('a repository with neither its default branch nor origin’s, without --base', async () => {
    await repo.git(['branch', '-m', 'main', 'trunk']);
    await repo.git(['update-ref', '-d', 'refs/remotes/origin/main']);
    await refused(
      () => ensure(repo, herdr, 'feat/y'),
      '--branch feat/y: no base: neither main nor origin/main exists; give --base',
    );
  });

  it('a repository whose dogsled.toml is broken', async () => {
    await writeFile(join(repo.main, 'dogsled.toml'), '[worktree]\nsetup = ["echo {nope}"]\n');
    await refused(
      () => ensure(repo, herdr, 'feat/t'),
      /^repository config .*dogsled\.toml: worktree\.setup\[0\]: unknown placeholder \{nope\}/,
    );
    await writeFile(join(repo.main, 'dogsled.toml'), '[worktree]\ndri = "x"\n');
    await refused(() => ensure(repo, herdr, 'feat/t'), /dogsled\.toml: unknown key "worktree\.dri"$/);
  });

  it('no reachable Herdr', async () => {
    const env = { ...herdr.env, HERDR_SOCKET_PATH: join(dir, 'nobody.sock'), PATH: process.env.PATH ?? '' };
    await refused(
      () => ensure(repo, herdr, 'feat/h', undefined, { env }),
      /^agent needs Herdr or tmux \(.*nobody\.sock.* and no herdr binary is on PATH\)$/,
    );
  });

  it('a path that is not in a Git repository', async () => {
    const plain = await tempDir('dogsled-not-a-repo-');
    const error = await ensure({ ...repo, main: plain } as Repo, herdr, 'feat/x').catch((e: Error) => e);
    expect((error as Error).message).toMatch(
      new RegExp(`^--branch needs a Git repository: ${plain} is not in one \\(`),
    );
    await rm(plain, { recursive: true, force: true });
  });
});
