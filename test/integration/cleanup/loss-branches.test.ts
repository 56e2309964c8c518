// The loss rule on branches without a worktree. One real repository with a bare remote holds every
// scenario, each in its own directory so they cannot interfere; one survey and one `prune --yes`
// run over all of them, as they would in a real repository. Each test reads its branch's verdict
// and proof from the survey and checks what prune did to the ref.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CleanupSurvey } from '../../../service/cleanup/doctor.js';
import type { PruneReport } from '../../../service/cleanup/doctor-report.js';
import {
  changed,
  doctorIn,
  freshRepo,
  lines,
  pruneIn,
  type Repo,
  refSha,
  removeScenarios,
} from '../../helpers/git-scenarios.js';

const DIRS = [
  'merge',
  'squash',
  'pick',
  'rebase',
  'stack',
  'mainmerge',
  'revert',
  'later',
  'rename',
  'remote',
  'contained',
  'threeway',
  'partial',
  'renamec',
  'local',
  'rebasing',
  'bisected',
];
const x = (dir: string, replace: Record<number, string> = {}) => ({
  [`${dir}/x.txt`]: changed(`${dir}x`, replace),
});
const y = (dir: string, replace: Record<number, string> = {}) => ({
  [`${dir}/y.txt`]: changed(`${dir}y`, replace),
});

let repo: Repo;
let survey: CleanupSurvey;
let pruned: PruneReport;
const shas: Record<string, string | undefined> = {};
const before: Record<string, string | null> = {};

beforeAll(async () => {
  repo = await freshRepo();
  const base = Object.assign(
    {},
    ...DIRS.map((dir) => ({ [`${dir}/x.txt`]: lines(`${dir}x`), [`${dir}/y.txt`]: lines(`${dir}y`) })),
  );
  await repo.commit(base, 'scenario files');
  await repo.push('main');

  await repo.branch('merge', [x('merge', { 2: 'M2' }), y('merge', { 2: 'M2' })]);
  await repo.git(['merge', '-q', '--no-ff', '-m', 'merge branch', 'merge']);
  await repo.push('main');

  [shas.squashFirst, shas.squashLast] = await repo.branch('squash', [
    x('squash', { 2: 'S2' }),
    y('squash', { 2: 'S2' }),
  ]);
  shas.squash = await repo.squash('squash');

  await repo.branch('pick', [x('pick', { 4: 'P4' })]);
  await repo.git(['cherry-pick', 'pick']);
  await repo.push('main');
  shas.pick = await repo.sha('main');

  const [c1, c2] = await repo.branch('rebase', [x('rebase', { 2: 'R2' }), y('rebase', { 5: 'R5' })]);
  await repo.git(['cherry-pick', c1 as string, c2 as string]);
  await repo.push('main');
  Object.assign(shas, { rebase1: c1, rebase2: c2, p1: await repo.sha('main~1'), p2: await repo.sha('main') });

  [shas.lower] = await repo.branch('lower', [x('stack', { 2: 'L2' })]);
  [shas.upper] = await repo.branch('upper', [y('stack', { 3: 'U3' })], 'lower');
  shas.k1 = await repo.squash('lower');
  shas.k2 = await repo.squash('upper');

  // Created before main changes threeway/x.txt elsewhere, so landing it needs a content merge.
  await repo.branch('threeway', [x('threeway', { 2: 'T2' })]);
  await repo.commit(x('threeway', { 9: 'main9' }), 'main edits another line');
  await repo.branch('mainmerge', [x('mainmerge', { 2: 'MM2' })]);
  shas.moved = await repo.commit(y('mainmerge', { 9: 'main9' }), 'main moves');
  await repo.push('main');
  await repo.on('mainmerge', async () => {
    await repo.git(['merge', '-q', '--no-edit', 'main']);
    await repo.commit(x('mainmerge', { 2: 'MM2', 7: 'MM7' }), 'after the merge');
  });
  shas.mainmerge = await repo.squash('mainmerge');
  shas.threeway = await repo.squash('threeway');

  await repo.branch('revert', [
    { ...x('revert', { 2: 'V2' }), ...y('revert', { 2: 'V2' }) },
    y('revert'),
    { 'revert/z.txt': 'new\n' },
  ]);
  shas.revert = await repo.squash('revert');

  await repo.branch('later', [x('later', { 2: 'A2' })]);
  shas.later = await repo.squash('later');
  await repo.commit(x('later', { 2: 'changed again' }), 'later edit');
  await repo.push('main');

  await repo.branch('rename', [{ 'rename/y.txt': null, 'rename/z.txt': lines('renamey') }]);
  shas.rename = await repo.squash('rename');

  await repo.branch('remote', [x('remote', { 7: 'R7' })]);
  await repo.push('remote');

  await repo.branch('part', [x('contained', { 2: 'first try' })]);
  await repo.branch('whole', [{ ...x('contained', { 2: 'final' }), ...y('contained', { 3: 'W3' }) }], 'part');
  shas.whole = await repo.squash('whole');

  await repo.branch('partial', [{ ...x('partial', { 2: 'P2' }), ...y('partial', { 2: 'P2' }) }]);
  await repo.commit(x('partial', { 2: 'P2' }), 'only x');
  await repo.push('main');

  await repo.branch('renamec', [{ 'renamec/y.txt': null, 'renamec/z.txt': lines('renamecy') }]);
  await repo.commit(y('renamec', { 9: 'main9' }), 'main edits y');
  await repo.squash('renamec');

  await repo.branch('local', [x('local', { 3: 'mine' }), y('local', { 3: 'mine' })]);

  // Pushed branches (every commit on the remote) that an operation holds with a detached HEAD in a
  // worktree: Git refuses to delete them, and the operation writes the branch back when it ends.
  await repo.branch('rebasing', [x('rebasing', { 2: 'R' })]);
  await repo.push('rebasing');
  await repo.commit(x('rebasing', { 2: 'main' }), 'main edits the same line');
  const rebasing = await repo.worktree('rebasing');
  await repo.git(['rebase', 'main'], rebasing).catch(() => undefined); // stops on the conflict
  await repo.branch('bisected', [
    x('bisected', { 1: 'B1' }),
    x('bisected', { 2: 'B2' }),
    x('bisected', { 3: 'B3' }),
  ]);
  await repo.push('bisected');
  const bisected = await repo.worktree('bisected');
  await repo.git(['bisect', 'start', 'bisected', 'main'], bisected);

  survey = await doctorIn(repo);
  for (const entry of survey.report.branches) before[entry.branch] = entry.head;
  pruned = (await pruneIn(repo, ['branches'])).report;
}, 180_000);

function entry(name: string) {
  const found = survey.report.branches.find((branch) => branch.branch === name);
  if (!found) throw new Error(`no branch entry ${name}`);
  return found;
}

async function expectRemoved(name: string) {
  expect(entry(name).removable, entry(name).reason).toBe(true);
  expect(pruned.results).toContainEqual(
    expect.objectContaining({ kind: 'branch', branch: name, branch_deleted: true }),
  );
  expect(await refSha(repo, `refs/heads/${name}`)).toBeNull();
  return entry(name);
}

async function expectKept(name: string) {
  expect(entry(name).removable).toBe(false);
  expect(entry(name).proof).toBeNull();
  expect(await refSha(repo, `refs/heads/${name}`)).toBe(before[name]);
  return entry(name);
}

afterAll(removeScenarios);

describe('integrated branches are removed with their proof', () => {
  it('prune removed them all without a failure or a skip', () => {
    expect(pruned.failures).toEqual([]);
    expect(pruned.skipped).toEqual([]);
  });

  it('a plain merge is an ancestor of the remote default branch', async () => {
    const found = await expectRemoved('merge');
    expect(found.proof).toEqual({ kind: 'ancestor', ref: 'refs/remotes/origin/main' });
    expect(found.reason).toBe('merged into origin/main');
  });

  it('a squash merge names the squash commit as the one run', async () => {
    const found = await expectRemoved('squash');
    expect(found.proof).toMatchObject({
      kind: 'applied',
      ref: 'refs/remotes/origin/main',
      runs: [{ first: shas.squashFirst, last: shas.squashLast, commits: 2, by: shas.squash }],
    });
  });

  it('a cherry-picked branch is applied by the picked commit', async () => {
    expect((await expectRemoved('pick')).proof).toMatchObject({ kind: 'applied', runs: [{ by: shas.pick }] });
  });

  it('rebase-and-merge is two runs, each applied by its rebased commit', async () => {
    expect((await expectRemoved('rebase')).proof).toMatchObject({
      kind: 'applied',
      runs: [
        { first: shas.rebase1, last: shas.rebase1, by: shas.p1 },
        { first: shas.rebase2, last: shas.rebase2, by: shas.p2 },
      ],
    });
  });

  it('a stack of two branches, each landed as its own squash, is one run below and two above', async () => {
    expect((await expectRemoved('lower')).proof).toMatchObject({ runs: [{ last: shas.lower, by: shas.k1 }] });
    expect((await expectRemoved('upper')).proof).toMatchObject({
      kind: 'applied',
      runs: [
        { last: shas.lower, by: shas.k1 },
        { first: shas.upper, last: shas.upper, by: shas.k2 },
      ],
    });
  });

  it('a squash onto a main that changed other lines of the file is proven by a content merge', async () => {
    expect((await expectRemoved('threeway')).proof).toMatchObject({
      kind: 'applied',
      runs: [{ by: shas.threeway }],
    });
  });

  it('a branch that merged main into itself and then landed by squash is one run from the merge base', async () => {
    expect((await expectRemoved('mainmerge')).proof).toMatchObject({
      kind: 'applied',
      runs: [{ base: shas.moved, by: shas.mainmerge }],
    });
  });

  it('a revert inside the branch does not enlarge its net diff', async () => {
    expect((await expectRemoved('revert')).proof).toMatchObject({ runs: [{ commits: 3, by: shas.revert }] });
  });

  it('a squash whose path main changed again later is still the applying commit', async () => {
    expect((await expectRemoved('later')).proof).toMatchObject({ runs: [{ by: shas.later }] });
  });

  it('a rename landed as the same delete and add is applied (renames are not followed)', async () => {
    expect((await expectRemoved('rename')).proof).toMatchObject({ runs: [{ by: shas.rename }] });
  });

  it('every commit on a remote branch makes a local branch removable', async () => {
    const found = await expectRemoved('remote');
    expect(found.proof).toEqual({ kind: 'held', ref: 'refs/remotes/origin/remote' });
    expect(found.reason).toBe('every commit is on origin/remote');
  });

  it('a tip inside another integrated ref is integrated through that ref, named in the proof', async () => {
    expect((await expectRemoved('part')).proof).toMatchObject({
      kind: 'contained',
      ref: 'refs/heads/whole',
      by: { kind: 'applied', runs: [{ by: shas.whole }] },
    });
    await expectRemoved('whole');
  });
});

describe('doubtful or local work is kept untouched', () => {
  it('a partial squash that left out one file is kept', async () => {
    expect((await expectKept('partial')).reason).toBe(
      'local work: 1 commit not in the default branch or on a remote branch',
    );
  });

  it('a rename against a path that main changed meanwhile is a conflict, so kept', async () => {
    await expectKept('renamec');
  });

  it('a branch a rebase or a bisect holds in a worktree (detached HEAD) is kept, as Git would refuse it', async () => {
    expect((await expectKept('rebasing')).reason).toMatch(/^a rebase in .*rebasing is in progress on it$/);
    expect((await expectKept('bisected')).reason).toMatch(/^a bisect in .*bisected is in progress on it$/);
  });

  it('local-only commits are kept', async () => {
    expect((await expectKept('local')).reason).toContain('2 commits not in the default branch');
  });

  it('the default branch is never a candidate', async () => {
    expect(entry('main')).toMatchObject({ removable: false, reason: 'the default branch is never removed' });
    expect(await refSha(repo, 'refs/heads/main')).toBe(before.main);
  });
});
