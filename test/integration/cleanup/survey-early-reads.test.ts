// A survey starts some git reads before it needs them: the refs as soon as the fetch ends, and the
// default branch's window (where squash-landed commits are searched) as soon as the refs are read,
// both beside the checkout reads. A read that fails is worded only where the survey needed it, never
// left unhandled, and never turns doubt into a removal; a recheck narrowed to one entry starts none.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { surveyRepository } from '../../../service/cleanup/survey.js';
import { repositoryAt } from '../../../service/git/repository.js';
import {
  doctorIn,
  freshRepo,
  landedWorktree,
  lines,
  type Repo,
  removeScenarios,
} from '../../helpers/git-scenarios.js';

afterAll(removeScenarios);

/**
 * A `git` first on PATH that logs each call's arguments, then fails a call that has the argument
 * `failing` (the window's read is `rev-list --topo-order`), and otherwise runs the real git.
 */
async function gitWrapper(
  repo: Repo,
  failing: string | null,
): Promise<{ env: NodeJS.ProcessEnv; log: string }> {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const bin = join(repo.root, `bin-${failing ?? 'none'}`);
  await mkdir(bin, { recursive: true });
  const log = join(bin, 'git.log');
  await writeFile(log, '');
  const fail = failing
    ? `case " $* " in *" ${failing} "*) echo "fatal: ${failing} is unreadable" >&2; exit 128;; esac\n`
    : '';
  await writeFile(
    join(bin, 'git'),
    `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\n${fail}exec ${JSON.stringify(real)} "$@"\n`,
  );
  await chmod(join(bin, 'git'), 0o755);
  return { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, log };
}

const windowReads = async (log: string): Promise<number> =>
  (await readFile(log, 'utf8')).split('\n').filter((line) => line.includes('--topo-order')).length;

/** `squashed` landed on main by a squash, `merged` by a merge, both pushed; `open` not landed. */
async function landedRepo(): Promise<Repo> {
  const repo = await freshRepo();
  await repo.branch('squashed', [{ 's.txt': lines('s') }, { 's2.txt': lines('s2') }]);
  await repo.squash('squashed');
  await repo.branch('merged', [{ 'm.txt': lines('m') }]);
  await repo.git(['merge', '-q', '--no-ff', '-m', 'merge merged', 'merged']);
  await repo.push('main');
  await repo.branch('open', [{ 'o.txt': lines('o') }]);
  return repo;
}

const branch = (survey: Awaited<ReturnType<typeof doctorIn>>, name: string) =>
  survey.report.branches.find((entry) => entry.branch === name);

describe('reads a survey starts early', () => {
  it('proves a squash-landed branch through the window it read beside the checkouts, once', async () => {
    const repo = await landedRepo();
    const { env, log } = await gitWrapper(repo, null);
    const survey = await doctorIn(repo, { env });
    expect(branch(survey, 'squashed')).toMatchObject({ removable: true, proof: { kind: 'applied' } });
    expect(branch(survey, 'merged')?.removable).toBe(true);
    expect(branch(survey, 'open')?.removable).toBe(false);
    expect(survey.report.warnings).toEqual([]);
    expect(await windowReads(log)).toBe(1);
  });

  it('words a failed window read, and keeps the branch only it could prove landed', async () => {
    const repo = await landedRepo();
    const { env } = await gitWrapper(repo, '--topo-order');
    const survey = await doctorIn(repo, { env });
    expect(survey.report.warnings.join('\n')).toMatch(
      /cannot check integration: .*--topo-order is unreadable/,
    );
    expect(branch(survey, 'squashed')?.removable).toBe(false);
    expect(branch(survey, 'open')?.removable).toBe(false);
    // Held by the default branch: the window was never needed for it.
    expect(branch(survey, 'merged')?.removable).toBe(true);
    expect(survey.plan.some((entry) => entry.kind === 'branch' && entry.branch === 'squashed')).toBe(false);
  });

  it('says nothing of a failed window read it did not need', async () => {
    const repo = await freshRepo();
    await repo.branch('merged', [{ 'm.txt': lines('m') }]);
    await repo.git(['merge', '-q', '--no-ff', '-m', 'merge merged', 'merged']);
    await repo.push('main');
    const { env, log } = await gitWrapper(repo, '--topo-order');
    const survey = await doctorIn(repo, { env });
    expect(await windowReads(log)).toBe(1);
    expect(survey.report.warnings).toEqual([]);
    expect(branch(survey, 'merged')?.removable).toBe(true);
  });

  it('starts no window read for a recheck narrowed to a branch the default branch holds', async () => {
    const repo = await landedRepo();
    const { env, log } = await gitWrapper(repo, null);
    const found = await surveyRepository(repo.main, {
      fetch: 'skip',
      callerCwd: null,
      registered: [],
      only: { branch: 'merged' },
      env,
    });
    expect(found.branches.map((entry) => [entry.facts.name, entry.verdict.removable])).toEqual([
      ['merged', true],
    ]);
    expect(await windowReads(log)).toBe(0);
  });

  it.each([
    ['on its branch', false, 1],
    // Detached, its new head is no branch's tip either: the early verdicts lack it, and are judged again.
    ['detached', true, 2],
  ])(
    'judges a checkout %s by the head it has now, not the one Git listed before it gained a commit',
    async (_name, detach, graphs) => {
      const repo = await freshRepo();
      const path = detach ? await repo.worktree('loose', { detach: true }) : await landedWorktree(repo);
      const { env, log } = await gitWrapper(repo, null);
      const listed = await repositoryAt(repo.main, { env });
      const survey = (trustStat: boolean) =>
        surveyRepository(repo.main, {
          fetch: 'skip',
          callerCwd: null,
          registered: [],
          identity: listed,
          trustStat,
          env,
        });
      const before = await survey(true);
      expect(before.worktrees[0]?.verdict.kind).toBe('removable');
      // A commit only this checkout has, made after Git listed the worktrees (the survey's identity).
      await repo.commit({ 'late.txt': lines('late') }, 'late work', path);
      const late = await repo.sha('HEAD', path);
      for (const trustStat of [true, false]) {
        await writeFile(log, '');
        const after = await survey(trustStat);
        const found = after.worktrees[0];
        expect(found?.facts.head).toBe(late);
        expect(found?.facts.commits).toMatchObject({ landed: false });
        expect(found?.verdict.kind).not.toBe('removable');
        expect((await readFile(log, 'utf8')).match(/rev-list --parents --stdin/g)).toHaveLength(graphs);
      }
    },
  );

  it('words a repository whose refs cannot be read while its checkouts are, and plans nothing of it', async () => {
    const repo = await landedRepo();
    await repo.worktree('squashed');
    const { env } = await gitWrapper(repo, 'for-each-ref');
    const survey = await doctorIn(repo, { env });
    expect(survey.report.warnings.join('\n')).toMatch(/cannot survey: .*for-each-ref is unreadable/);
    expect(survey.plan.filter((entry) => entry.kind === 'branch' || entry.kind === 'worktree')).toEqual([]);
  });
});
