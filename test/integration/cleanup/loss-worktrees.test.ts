// The loss rule on checkouts: linked worktrees on a branch or detached, their files, their holds,
// and worktrees Git no longer manages. One repository holds every case (each its own worktree);
// one survey and one `prune --yes`. A kept worktree must come through byte for byte.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CleanupSurvey } from '../../../service/cleanup/doctor.js';
import type { PruneReport } from '../../../service/cleanup/doctor-report.js';
import { surveyRepository } from '../../../service/cleanup/survey.js';
import { rememberWorktree } from '../../../service/state/records/registries.js';
import {
  cleanupIO,
  doctorIn,
  edit,
  freshRepo,
  pruneIn,
  type Repo,
  refSha,
  removeScenarios,
  snapshotTree,
  writeFiles,
} from '../../helpers/git-scenarios.js';

let repo: Repo;
let survey: CleanupSurvey;
let pruned: PruneReport;
const paths: Record<string, string> = {};
const snapshots: Record<string, Record<string, string>> = {};
const tips: Record<string, string | null> = {};
const KEPT = [
  'dirty',
  'untracked',
  'local',
  'detachedlocal',
  'foreign',
  'caller',
  'unlisted',
  'prunable',
  'badgit',
  'bisecting',
];

beforeAll(async () => {
  repo = await freshRepo();
  const add = async (name: string, options: Parameters<Repo['worktree']>[1] = {}) => {
    paths[name] = await repo.worktree(name, options);
    return paths[name] as string;
  };
  await add('landed', { lock: 'agent:worktree' });
  await writeFiles(await add('ignored'), { 'ignored/cache.bin': 'x', 'build.log': 'log\n' });
  const deleted = await add('deleted');
  await rm(join(deleted, 'a.txt'));
  await repo.git(['rm', '-q', 'b.txt'], deleted);
  await writeFiles(await add('dirty'), { 'c.txt': edit('c', 4, 'unsaved') });
  await writeFiles(await add('untracked'), { 'notes.txt': 'mine\n' });
  await repo.commit({ 'local.txt': 'work\n' }, 'local work', await add('local'));
  await repo.commit({ 'pushed.txt': 'work\n' }, 'pushed work', await add('pushed'));
  await repo.push('pushed');
  await add('detached', { detach: true });
  await repo.commit({ 'mine.txt': 'x\n' }, 'detached work', await add('detachedlocal', { detach: true }));
  await add('foreign', { lock: 'ci' });
  await repo.git(['bisect', 'start'], await add('bisecting'));
  await writeFiles(await add('caller'), { 'sub/.keep': '' });
  const io = cleanupIO(repo);
  const unlisted = await add('unlisted');
  await rememberWorktree(io, { path: unlisted, repository: repo.main, branch: 'unlisted', created_ms: 1 });
  await rm(join(unlisted, '.git'));
  await repo.git(['worktree', 'prune']);
  // Made after the prune, so git still lists this one, as prunable.
  await rm(join(await add('prunable'), '.git'));
  await writeFile(join(await add('badgit'), '.git'), '');
  paths.gone = join(repo.main, '.worktrees', 'gone');
  await rememberWorktree(io, { path: paths.gone, repository: repo.main, branch: 'gone', created_ms: 1 });

  for (const name of KEPT) {
    snapshots[name] = await snapshotTree(paths[name] as string);
    tips[name] = await refSha(repo, `refs/heads/${name}`);
  }
  const caller = join(paths.caller as string, 'sub');
  survey = await doctorIn(repo, { callerCwd: caller });
  pruned = (await pruneIn(repo, ['worktrees'], { callerCwd: caller })).report;
}, 180_000);

function entry(name: string) {
  const found = survey.report.worktrees.find((worktree) => worktree.path === paths[name]);
  if (!found) throw new Error(`no worktree entry ${name}`);
  return found;
}

async function listed(name: string): Promise<boolean> {
  return (await repo.git(['worktree', 'list', '--porcelain'])).includes(`worktree ${paths[name]}\n`);
}

async function expectRemoved(name: string) {
  const found = entry(name);
  expect(found.removable, found.reason).toBe(true);
  expect(pruned.results).toContainEqual(expect.objectContaining({ kind: 'worktree', path: paths[name] }));
  expect(await listed(name)).toBe(false);
  await expect(snapshotTree(paths[name] as string)).rejects.toThrow(/ENOENT/);
  return found;
}

async function expectKept(name: string) {
  const found = entry(name);
  expect(found.removable).toBe(false);
  expect(found.proof).toBeNull();
  expect(await snapshotTree(paths[name] as string)).toEqual(snapshots[name]);
  expect(await refSha(repo, `refs/heads/${name}`)).toBe(tips[name]);
  return found;
}

afterAll(removeScenarios);

describe('removable checkouts', () => {
  it('prune ran every removal without a failure or a skip', () => {
    expect(pruned.failures).toEqual([]);
    expect(pruned.skipped).toEqual([]);
  });

  it("a clean landed worktree is unlocked from dogsled's lock and removed with its branch", async () => {
    const found = await expectRemoved('landed');
    expect(found.proof).toMatchObject({
      checkout: 'clean',
      unlock: true,
      delete_branch: true,
      commits: { kind: 'ancestor' },
    });
    expect(pruned.results).toContainEqual(
      expect.objectContaining({ path: paths.landed, branch_deleted: true }),
    );
    expect(await refSha(repo, 'refs/heads/landed')).toBeNull();
  });

  it('ignored files do not count', async () => {
    const found = await expectRemoved('ignored');
    expect(found.reason).toMatch(/^clean apart from ignored files; /);
    expect(found.proof?.ignored).toBe(2);
  });

  it('deleted tracked files alone, staged or not, are restored and lose nothing', async () => {
    const found = await expectRemoved('deleted');
    expect(found.proof).toMatchObject({ checkout: 'deleted-only', restore: ['a.txt', 'b.txt'] });
  });

  it('a worktree whose commits are all on its remote branch is removable', async () => {
    const found = await expectRemoved('pushed');
    expect(found.proof?.commits).toEqual({ kind: 'held', ref: 'refs/remotes/origin/pushed' });
  });

  it('a detached HEAD in the default branch is removable and deletes no branch', async () => {
    const found = await expectRemoved('detached');
    expect(found).toMatchObject({
      branch: null,
      proof: { delete_branch: false, commits: { kind: 'ancestor' } },
    });
  });
});

describe('kept checkouts come through untouched', () => {
  it('a dirty checkout whose commits landed is a landed_dirty finding, never removable', async () => {
    const found = await expectKept('dirty');
    expect(found.state).toBe('landed_dirty');
    expect(survey.report.landed_dirty).toContainEqual({
      repository: repo.main,
      checkout: paths.dirty,
      ref: 'dirty',
      dirty: 1,
      paths: ['c.txt'],
    });
  });

  it('an untracked file is unique content', async () => {
    expect((await expectKept('untracked')).reason).toBe('landed but dirty: 1 changed path (notes.txt)');
  });

  it('local-only commits are kept', async () => {
    expect((await expectKept('local')).reason).toBe(
      'local work: 1 commit not in the default branch or on a remote branch',
    );
  });

  it('a detached HEAD with its own commit is kept', async () => {
    expect((await expectKept('detachedlocal')).state).toBe('kept');
  });

  it("another tool's lock holds the worktree", async () => {
    expect((await expectKept('foreign')).holds).toEqual([
      { kind: 'lock', reason: 'worktree locked by git (ci)' },
    ]);
  });

  it('the caller holds the checkout it works in', async () => {
    expect((await expectKept('caller')).holds).toEqual([
      { kind: 'caller', reason: 'the caller works in this checkout' },
    ]);
  });

  it('a directory Git no longer lists is an unlinked hold, never removed and never a failure', async () => {
    const found = await expectKept('unlisted');
    expect(found).toMatchObject({ state: 'unlinked', registered: true });
    expect(found.reason).toBe(`worktree unregistered by git; directory remains: ${paths.unlisted}`);
    expect(survey.report.unlinked).toContainEqual({
      repository: repo.main,
      path: paths.unlisted,
      reason: found.reason,
    });
  });

  it('a worktree Git calls prunable, whose .git file is gone, is an unlinked hold too', async () => {
    const found = await expectKept('prunable');
    expect(found.state).toBe('unlinked');
    expect(found.reason).toMatch(/^git calls it prunable \(.+\); directory remains: /);
  });

  it('a checkout whose .git cannot be read refuses the check instead of reading a parent', async () => {
    const found = await expectKept('badgit');
    expect(found.reason).toMatch(/^cannot check the checkout: /);
  });

  it('a bisect in progress keeps a clean, landed checkout (its state would go with it)', async () => {
    expect((await expectKept('bisecting')).reason).toBe('a bisect is in progress');
  });

  it('a registration whose path is gone loses only its record', () => {
    // The branch dogsled recorded, since Git no longer knows the worktree.
    expect(entry('gone')).toMatchObject({ state: 'stale', removable: true, branch: 'gone', head: null });
    expect(pruned.results).toContainEqual(
      expect.objectContaining({ kind: 'worktree-record', path: paths.gone }),
    );
  });
});

describe('the main checkout', () => {
  it('a landed branch checked out in the main checkout is kept, and so is the checkout', async () => {
    const other = await freshRepo();
    await other.branch('feat', [{ 'a.txt': edit('a', 2, 'A2') }]);
    await other.git(['merge', '-q', '--no-ff', '-m', 'merge', 'feat']);
    await other.push('main');
    await other.git(['checkout', '-q', 'feat']);
    await writeFiles(other.main, { 'scratch.txt': 'unsaved\n' });
    const tip = await refSha(other, 'refs/heads/feat');
    const { survey: found, report } = await pruneIn(other);
    expect(found.report.branches.find((b) => b.branch === 'feat')).toMatchObject({
      removable: false,
      reason: 'checked out in the main checkout',
    });
    expect(found.report.landed_dirty).toEqual([]);
    expect(report.results).toEqual([]);
    expect(await refSha(other, 'refs/heads/feat')).toBe(tip);
    expect((await other.git(['status', '--porcelain'])).trim()).toBe('?? scratch.txt');
  });
});

describe('a survey of commits only', () => {
  it("reads no checkout (an agent pane's landed mark), so nothing it returns is removable", async () => {
    const other = await freshRepo();
    const path = await other.worktree('feat');
    await writeFiles(path, { 'scratch.txt': 'x\n' });
    const found = await surveyRepository(other.main, {
      fetch: 'skip',
      callerCwd: null,
      registered: [],
      only: { worktree: path },
      content: false,
      env: process.env,
    });
    expect(found.worktrees[0]?.facts).toMatchObject({ content: null, commits: { landed: true } });
    expect(found.worktrees[0]?.verdict).toMatchObject({ kind: 'kept', reason: 'the checkout was not read' });
  });
});

describe('a failed fetch', () => {
  it('warns for the repository, and then only the default branch holds commits', async () => {
    const other = await freshRepo();
    const path = await other.worktree('pushed');
    await other.commit({ 'p.txt': 'p\n' }, 'pushed work', path);
    await other.push('pushed');
    await other.git(['remote', 'set-url', 'origin', join(other.root, 'gone.git')]);
    const before = await snapshotTree(path);
    const { survey: failed, report } = await pruneIn(other);
    expect(failed.report.repositories[0]?.warnings[0]).toMatch(
      /^fetch failed: .*; only the default branch counts$/,
    );
    expect(failed.report.worktrees[0]?.reason).toBe(
      'local work: 1 commit not in the default branch (fetch failed, so remote branches do not count)',
    );
    expect(report.results).toEqual([]);
    expect(await snapshotTree(path)).toEqual(before);
  });
});

describe('a work tree that config moves', () => {
  it('refuses the check of a clean, landed worktree whose own config names another work tree', async () => {
    const other = await freshRepo();
    const path = await other.worktree('moved');
    await other.git(['config', 'extensions.worktreeConfig', 'true']);
    await other.git(['config', '--worktree', 'core.worktree', other.root], path);
    const before = await snapshotTree(path);
    const { survey: found, report } = await pruneIn(other);
    expect(found.report.worktrees.find((worktree) => worktree.path === path)).toMatchObject({
      removable: false,
      reason: expect.stringMatching(/^cannot check the checkout: git's top level is /),
    });
    expect(report.results).toEqual([]);
    expect(await snapshotTree(path)).toEqual(before);
  });
});
