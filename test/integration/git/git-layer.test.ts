// service/git against real repositories: each parser on Git's own output (odd file names included),
// batched diffs, the three-way answers Git gives without writing into the repository, and the
// process runner's typed results.
import { chmod, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffTrees } from '../../../service/git/diff.js';
import { gitDirsOfSync } from '../../../service/git/git-dir.js';
import { checkoutIdentity, readStatus } from '../../../service/git/git-status.js';
import { linkedIdentityProven, worktreeConfigPossible } from '../../../service/git/linked-identity.js';
import { fetchAll, readRefs } from '../../../service/git/refs.js';
import { repositoryAt } from '../../../service/git/repository.js';
import { failureOf, runGit, succeeded } from '../../../service/git/run-git.js';
import { answerMerges } from '../../../service/git/three-way.js';
import { listWorktrees } from '../../../service/git/worktrees.js';
import {
  changed,
  freshRepo,
  lines,
  type Repo,
  removeScenarios,
  writeFiles,
} from '../../helpers/git-scenarios.js';

let repo: Repo;

beforeAll(async () => {
  repo = await freshRepo();
});

async function looseObjects(): Promise<number> {
  const dir = join(repo.main, '.git', 'objects');
  let count = 0;
  for (const name of await readdir(dir))
    if (/^[0-9a-f]{2}$/.test(name)) count += (await readdir(join(dir, name))).length;
  return count;
}

afterAll(removeScenarios);

/** The environment git starts from: this test process's own, never changed by a test. */
const git = { env: process.env };

describe('worktree list', () => {
  it('reads locked reasons, prunable worktrees and detached HEADs', async () => {
    const locked = await repo.worktree('locked', { lock: 'in use: by ci' });
    const detached = await repo.worktree('detached', { detach: true });
    const gone = await repo.worktree('gone');
    await rm(gone, { recursive: true });
    const list = await listWorktrees(repo.main, git);
    expect(list[0]).toMatchObject({ path: repo.main, main: true, branch: 'refs/heads/main' });
    expect(list.find((w) => w.path === locked)).toMatchObject({
      locked: 'in use: by ci',
      branch: 'refs/heads/locked',
    });
    expect(list.find((w) => w.path === detached)).toMatchObject({
      detached: true,
      branch: null,
      locked: null,
    });
    expect(list.find((w) => w.path === gone)?.prunable).toMatch(/non-existent location/);
    expect((await repositoryAt(locked, git)).main).toBe(repo.main);
  });
});

describe('status', () => {
  it('lists odd names exactly, tells ignored paths apart, and reads HEAD and branch', async () => {
    const path = await repo.worktree('odd');
    await writeFiles(path, {
      'with space.txt': 'x',
      'new\nline.txt': 'x',
      'ünïcode.txt': 'x',
      'ignored/a': 'x',
      'x.log': 'x',
    });
    await rm(join(path, 'a.txt'));
    const read = await readStatus(path, git);
    if (!read.ok) throw new Error(read.reason);
    expect(read.status.branch).toBe('odd');
    expect(read.status.head).toBe(await repo.sha('HEAD', path));
    expect(read.status.entries.map((entry) => [entry.xy, entry.path]).sort()).toEqual([
      ['.D', 'a.txt'],
      ['??', 'new\nline.txt'],
      ['??', 'with space.txt'],
      ['??', 'ünïcode.txt'],
    ]);
    expect(read.status.ignored).toBe(2);
    expect(read.status.inner).toEqual([]);
  });

  it('refuses a status that came back without its branch header, never reading it as clean', async () => {
    // What an answer cut short looks like (the runner once took one as git's whole output): status
    // 0 and nothing printed, from a git first on PATH that answers `status` so and runs the rest.
    const path = await repo.worktree('cutshort');
    await writeFiles(path, { 'unsaved.txt': 'x' });
    const bin = join(repo.root, 'cut-bin');
    const real = (await runGit(['--exec-path'], { ...git, cwd: repo.main })).stdout.toString('utf8').trim();
    await writeFiles(bin, {
      git: `#!/bin/sh\nfor arg; do [ "$arg" = status ] && exit 0; done\nexec ${join(real, 'git')} "$@"\n`,
    });
    await chmod(join(bin, 'git'), 0o755);
    const cut = { env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } };
    expect(await readStatus(path, cut)).toEqual({ ok: false, reason: 'git status printed no branch header' });
    const whole = await readStatus(path, git);
    expect(whole.ok && whole.status.entries.map((entry) => entry.path)).toEqual(['unsaved.txt']);
  });

  it('refuses the identity of a directory without its own .git', async () => {
    const path = await repo.worktree('noident');
    await rm(join(path, '.git'));
    expect(await checkoutIdentity(path, git)).toEqual({ ok: false, reason: '.git is missing' });
    expect(await checkoutIdentity(repo.main, git)).toEqual({ ok: true, real: await realpath(repo.main) });
    const { commonDir } = await repositoryAt(repo.main, git);
    expect(await checkoutIdentity(path, git, commonDir)).toEqual({ ok: false, reason: '.git is missing' });
  });
});

describe('a linked worktree proven by its files', () => {
  it("proves a linked worktree of this repository, never a main checkout or another repository's", async () => {
    const path = await repo.worktree('proven');
    const { commonDir } = await repositoryAt(repo.main, git);
    expect(await worktreeConfigPossible(commonDir)).toBe(false);
    // The proof hands on the dirs gitDirsOfSync reads, so they are not read again.
    expect(linkedIdentityProven(path, commonDir)).toEqual(gitDirsOfSync(path));
    expect(await checkoutIdentity(path, git, commonDir)).toEqual({
      ok: true,
      real: await realpath(path),
      dirs: gitDirsOfSync(path),
    });
    // A .git directory (the main checkout, a nested repository) is Git's to judge.
    expect(linkedIdentityProven(repo.main, commonDir)).toBeNull();
    const other = await freshRepo();
    expect(linkedIdentityProven(path, (await repositoryAt(other.main, git)).commonDir)).toBeNull();
  });

  it("doubts a .git that names another worktree's admin dir, and asks Git", async () => {
    const first = await repo.worktree('pointer-a');
    const second = await repo.worktree('pointer-b');
    const { commonDir } = await repositoryAt(repo.main, git);
    await writeFile(join(second, '.git'), await readFile(join(first, '.git'), 'utf8'));
    expect(linkedIdentityProven(second, commonDir)).toBeNull();
    // Git itself takes the directory for its top level: the identity holds as it always did.
    expect(await checkoutIdentity(second, git, commonDir)).toEqual({
      ok: true,
      real: await realpath(second),
    });
  });

  it('doubts a worktree whose config could move its work tree; Git then refuses it', async () => {
    const other = await freshRepo();
    const path = await other.worktree('moved');
    const { commonDir } = await repositoryAt(other.main, git);
    await other.git(['config', 'extensions.worktreeConfig', 'true']);
    await other.git(['config', '--worktree', 'core.worktree', other.root], path);
    expect(await worktreeConfigPossible(commonDir)).toBe(true);
    expect(linkedIdentityProven(path, commonDir)).toBeNull();
    // Even asked with the repository's common dir, the work tree Git uses is not the checkout.
    expect(await checkoutIdentity(path, git, commonDir)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^git's top level is /),
    });
  });
});

describe('refs', () => {
  it("reads tips, the remote default's symbolic ref, upstreams and checked-out worktrees in one call", async () => {
    const refs = await readRefs(repo.main, git);
    expect(refs.find((ref) => ref.name === 'refs/remotes/origin/HEAD')?.symref).toBe(
      'refs/remotes/origin/main',
    );
    expect(refs.find((ref) => ref.name === 'refs/heads/main')).toMatchObject({
      upstream: 'refs/remotes/origin/main',
      worktree: repo.main,
      sha: await repo.sha('main'),
    });
  });

  it('a fetch starts no maintenance afterwards: a survey changes nothing but remote-tracking refs', async () => {
    const trace = join(repo.root, 'fetch-trace.txt');
    await rm(trace, { force: true });
    expect(await fetchAll(repo.main, { env: { ...process.env, GIT_TRACE: trace } })).toEqual({ ok: true });
    const started = await readFile(trace, 'utf8');
    expect(started).toMatch(/built-in: git fetch /);
    expect(started).not.toMatch(/(built-in|run_command): git (maintenance|gc)\b/);
  });

  it('a fetch from a missing remote is a failure with its reason, not an exception', async () => {
    const other = await freshRepo();
    await other.git(['remote', 'set-url', 'origin', join(other.root, 'missing.git')]);
    const outcome = await fetchAll(other.main, git);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toMatch(/^git fetch exited 1/);
  });
});

describe('batched diffs', () => {
  it('answer each pair in its own direction, with modes, additions and deletions', async () => {
    const before = await repo.sha('main');
    const after = await repo.commit({ 'a.txt': null, 'd.txt': 'new\n' }, 'change', repo.main);
    await chmod(join(repo.main, 'b.txt'), 0o755);
    const mode = await repo.commit({}, 'mode');
    const diffs = await diffTrees(
      repo.main,
      [
        { from: before, to: after },
        { from: after, to: before },
        { from: after, to: mode },
        { from: mode, to: mode },
      ],
      git,
    );
    expect([...(diffs.get(`${before}..${after}`)?.entries() ?? [])]).toEqual([
      ['a.txt', { before: { mode: '100644', oid: expect.any(String) }, after: null }],
      ['d.txt', { before: null, after: { mode: '100644', oid: expect.any(String) } }],
    ]);
    expect(diffs.get(`${after}..${before}`)?.get('d.txt')?.after).toBeNull();
    expect(diffs.get(`${after}..${mode}`)?.get('b.txt')).toMatchObject({
      before: { mode: '100644' },
      after: { mode: '100755' },
    });
    expect(diffs.get(`${mode}..${mode}`)?.size).toBe(0);
  });
});

describe('three-way answers', () => {
  it('merge each question on its own, report conflicts, and write nothing into the repository', async () => {
    const hash = async (text: string) => {
      const file = join(repo.root, 'blob.txt');
      await writeFile(file, text);
      return (await repo.git(['hash-object', '-w', file])).trim();
    };
    const base = await hash(lines('m'));
    const ours = await hash(changed('m', { 1: 'ours' }));
    const theirs = await hash(changed('m', { 9: 'theirs' }));
    const clash = await hash(changed('m', { 1: 'clash' }));
    const both = await hash(changed('m', { 1: 'ours', 9: 'theirs' }));
    const objects = await looseObjects();
    const clean = { mode: '100644', base, ours, theirs };
    const conflicting = { mode: '100644', base, ours, theirs: clash };
    const answers = await answerMerges(
      repo.main,
      join(repo.main, '.git', 'objects'),
      [clean, conflicting, clean],
      git,
    );
    expect([...answers.values()]).toEqual([{ conflict: false, merged: both }, { conflict: true }]);
    expect(await looseObjects()).toBe(objects);
  });
});

describe('the process runner', () => {
  it('returns typed results, and an aborted call is never a success', async () => {
    const ok = await runGit(['rev-parse', 'HEAD'], { ...git, cwd: repo.main });
    expect(succeeded(ok)).toBe(true);
    expect(ok).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
    const bad = await runGit(['rev-parse', 'no-such-ref'], { ...git, cwd: repo.main });
    expect(succeeded(bad)).toBe(false);
    expect(failureOf(bad)).toMatch(/^git rev-parse exited 128/);
    const controller = new AbortController();
    controller.abort();
    const aborted = await runGit(['cat-file', '--batch'], {
      ...git,
      cwd: repo.main,
      signal: controller.signal,
    });
    expect(succeeded(aborted)).toBe(false);
  });

  it('answers once git exits, even when a helper it started (an ssh master) keeps its pipes open', async () => {
    const alias = 'alias.linger=!sleep 60 & echo $!';
    const result = await runGit(['-c', alias, 'linger'], { env: process.env, cwd: repo.main });
    const helper = Number(result.stdout.toString('utf8').trim());
    try {
      expect(helper).toBeGreaterThan(1);
      expect(succeeded(result)).toBe(true);
      expect(failureOf({ ...result, aborted: true })).toBe('git -c was interrupted');
    } finally {
      if (helper > 1) process.kill(helper, 'SIGKILL');
    }
  });

  it('is not fooled by a GIT_DIR or GIT_WORK_TREE in the environment it is given', async () => {
    // A hook's environment: every git call would act on another repository if it kept them.
    const hooked = {
      env: { ...process.env, GIT_DIR: join(repo.root, 'remote.git'), GIT_WORK_TREE: repo.root },
    };
    expect((await readRefs(repo.main, hooked)).some((ref) => ref.worktree === repo.main)).toBe(true);
  });

  it('starts git with the environment it is given, and nothing of its own process', async () => {
    const given = await runGit(['var', 'GIT_AUTHOR_IDENT'], {
      env: { ...process.env, GIT_AUTHOR_NAME: 'Given Caller' },
      cwd: repo.main,
    });
    expect(given.stdout.toString('utf8')).toMatch(/^Given Caller </);
    // A variable this process has but the caller left out does not reach git (its alias runs `env`).
    const { HOME: _home, ...homeless } = process.env;
    const seen = await runGit(['-c', 'alias.showenv=!env', 'showenv'], { env: homeless, cwd: repo.main });
    expect(succeeded(seen)).toBe(true);
    expect(seen.stdout.toString('utf8')).not.toMatch(/^HOME=/m);
  });
});
