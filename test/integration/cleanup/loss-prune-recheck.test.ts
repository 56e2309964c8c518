// Prune's recheck: every planned entry is surveyed again right before its removal. Live work that
// appeared after the plan is a skip with its reason; a changed identity or a missing entry is a
// failure; something removed by someone else is "already removed". Teardown runs first, and a
// failed teardown keeps everything and shows the command's last lines.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PruneReport } from '../../../service/cleanup/doctor-report.js';
import { applyPlan } from '../../../service/cleanup/prune.js';
import { selectPlan } from '../../../service/core/cleanup/prune-plan.js';
import { readRegistries, rememberWorktree } from '../../../service/state/records/registries.js';
import {
  cleanupIO,
  doctorIn,
  edit,
  freshRepo,
  type Repo,
  refSha,
  removeScenarios,
  writeFiles,
} from '../../helpers/git-scenarios.js';

let repo: Repo;
let report: PruneReport;
const paths: Record<string, string> = {};

beforeAll(async () => {
  repo = await freshRepo();
  const log = join(repo.root, 'teardown.log');
  const teardown = [
    `echo {branch} >> ${log}`,
    '[ {branch} != failing ] || (echo first line; echo teardown says no; exit 3)',
    '[ {branch} != committer ] || git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m late',
  ];
  await repo.commit(
    {
      'dogsled.toml': `[worktree]\nteardown = [\n${teardown.map((line) => `  ${JSON.stringify(line)},\n`).join('')}]\n`,
    },
    'repository configuration',
  );
  const io = cleanupIO(repo);
  for (const name of [
    'moved',
    'dirtied',
    'vanished',
    'switched',
    'relocated',
    'failing',
    'good',
    'committer',
  ]) {
    paths[name] = await repo.worktree(name, { lock: 'agent:worktree' });
    await rememberWorktree(io, { path: paths[name], repository: repo.main, branch: name, created_ms: 1 });
  }
  for (const name of ['newcommit', 'deletedbranch']) {
    await repo.branch(name, [{ [`${name}.txt`]: 'x\n' }]);
    await repo.push(name);
  }

  const survey = await doctorIn(repo);
  const plan = selectPlan(survey.plan, ['worktrees', 'branches']);
  expect(plan.map((entry) => entry.kind)).toEqual([...Array(8).fill('worktree'), 'branch', 'branch']);

  await repo.commit({ 'new.txt': 'new\n' }, 'live work', paths.moved);
  await writeFiles(paths.dirtied as string, { 'a.txt': edit('a', 1, 'typing') });
  await repo.git(['worktree', 'unlock', paths.vanished as string]);
  await repo.git(['worktree', 'remove', paths.vanished as string]);
  await repo.git(['switch', '-q', '-c', 'elsewhere'], paths.switched);
  paths.relocatedTo = join(repo.main, '.worktrees', 'relocated-now');
  await repo.git(['worktree', 'unlock', paths.relocated as string]);
  await repo.git(['worktree', 'move', paths.relocated as string, paths.relocatedTo]);
  await repo.on('newcommit', () => repo.commit({ 'newcommit.txt': 'more\n' }, 'more'));
  await repo.git(['branch', '-q', '-D', 'deletedbranch']);

  report = await applyPlan(io, survey, plan);
}, 180_000);

const skipOf = (path: string) => report.skipped.find((skip) => skip.path === path);
const failureOf = (path: string) => report.failures.find((failure) => failure.path === path);

afterAll(removeScenarios);

describe('live work after the plan is skipped, not a failure', () => {
  it('a HEAD moved by a new commit', async () => {
    expect(skipOf(paths.moved as string)?.reason).toMatch(/^HEAD moved after the plan \(\w{10} → \w{10}\)$/);
    expect(await refSha(repo, 'refs/heads/moved')).not.toBeNull();
  });

  it('a checkout that became dirty', () => {
    expect(skipOf(paths.dirtied as string)?.reason).toBe('landed but dirty: 1 changed path (a.txt)');
  });

  it('a branch that a new commit moved', () => {
    expect(report.skipped).toContainEqual(
      expect.objectContaining({
        kind: 'branch',
        branch: 'newcommit',
        reason: expect.stringMatching(/^a new commit moved it/),
      }),
    );
  });
});

describe('identity changes and missing entries are failures', () => {
  it('a worktree switched to another branch', () => {
    expect(failureOf(paths.switched as string)?.error).toBe('branch changed: switched is now elsewhere');
  });

  it('a worktree moved to another path', () => {
    expect(failureOf(paths.relocated as string)?.error).toBe(
      `path changed: the worktree of relocated is now ${paths.relocatedTo}`,
    );
  });

  it('a planned branch that no longer exists', () => {
    expect(report.failures).toContainEqual(
      expect.objectContaining({
        kind: 'branch',
        branch: 'deletedbranch',
        error: 'branch deletedbranch no longer exists',
      }),
    );
  });
});

describe('removals', () => {
  it('a worktree something else removed is reported as already removed, and its record goes', async () => {
    expect(report.results).toContainEqual(
      expect.objectContaining({
        kind: 'worktree',
        path: paths.vanished,
        already_removed: true,
        detail: 'registration dropped',
      }),
    );
    const { worktrees } = await readRegistries(cleanupIO(repo));
    expect(worktrees.map((record) => record.path)).not.toContain(paths.vanished);
  });

  it('teardown runs in the worktree before it is unlocked and removed', async () => {
    expect(report.results).toContainEqual(
      expect.objectContaining({ kind: 'worktree', path: paths.good, branch: 'good', branch_deleted: true }),
    );
    expect(await readFile(join(repo.root, 'teardown.log'), 'utf8')).toContain('good\n');
    expect(await refSha(repo, 'refs/heads/good')).toBeNull();
  });

  it('a failed teardown keeps the worktree, its lock and its branch, and shows the last lines', async () => {
    const error = failureOf(paths.failing as string)?.error ?? '';
    expect(error).toMatch(/^teardown command failed \(exit 3\): /);
    expect(error).toContain('\n  first line\n  teardown says no');
    const list = await repo.git(['worktree', 'list', '--porcelain']);
    expect(list).toContain(`worktree ${paths.failing}\nHEAD`);
    expect(list).toMatch(new RegExp(`worktree ${paths.failing}\\n[^]*?locked agent:worktree`));
    expect(await refSha(repo, 'refs/heads/failing')).not.toBeNull();
  });

  it('a branch that a new commit moved during teardown stays, as a skip, while its worktree goes', async () => {
    expect(report.results).toContainEqual(
      expect.objectContaining({
        path: paths.committer,
        branch_deleted: false,
        detail: 'branch committer kept: a new commit moved it',
      }),
    );
    expect(report.skipped).toContainEqual({
      kind: 'branch',
      path: repo.main,
      branch: 'committer',
      reason: 'a new commit moved it',
    });
    expect(await repo.git(['log', '-1', '--format=%s', 'committer'])).toBe('late\n');
  });

  it('nothing else failed or was skipped', () => {
    expect(report.failures).toHaveLength(4);
    expect(report.skipped).toHaveLength(4);
    expect(report.results).toHaveLength(3);
  });
});
