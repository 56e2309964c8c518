// Branch names git accepts but cannot give a worktree, and a `git worktree add` that fails after the
// branch is made: through the built CLI, the fake Herdr and real git. A refused name changes nothing
// (`place`, `run` and `agent` alike); a failed add removes the branch it made, never one that was
// there before, and the worktree a failing post-checkout hook leaves.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { worktreeNameProblem } from '../../../service/core/agents/branch-rule.js';
import { type CliResult, runCli } from '../../helpers/cli.js';
import { freshRepo, gitTestEnv, type Repo, refSha, removeScenarios } from '../../helpers/git-scenarios.js';
import { agentCli, agentSuite, quickTask } from '../agents/agent-fixtures.js';
import { registries, worktreeList } from './worktree-fixtures.js';

const execGit = promisify(execFile);
const suite = agentSuite();
let repo: Repo;

beforeEach(async () => {
  repo = await freshRepo();
});
afterAll(removeScenarios);

const LONG = `${'a'.repeat(200)}/${'b'.repeat(200)}`;

/** Every ref under refs/heads, with its commit. */
async function heads(): Promise<string> {
  return repo.git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads']);
}

function byCommand(command: string, branch: string): Promise<CliResult> {
  if (command === 'place')
    return runCli(['place', '--json', '--branch', branch, '--repo', repo.main], suite.env);
  if (command === 'run') {
    return runCli(['run', '--wait', '--branch', branch, '--', 'true'], suite.env, { cwd: repo.main });
  }
  return agentCli(suite, ['--kind', 'pi', '--name', 'named', '--branch', branch, '--message', quickTask()], {
    cwd: repo.main,
  });
}

describe('a name git accepts but cannot give a worktree', () => {
  it.each([
    ['place', '@', 'git cannot make a worktree in a directory named @'],
    ['run', '@', 'git cannot make a worktree in a directory named @'],
    ['agent', '@', 'git cannot make a worktree in a directory named @'],
    ['place', LONG, 'its worktree directory name would be 401 bytes, over 240'],
    ['place', 'c'.repeat(251), 'a part between slashes is over 250 bytes'],
  ])(
    '%s --branch %s is refused before any change',
    async (command, branch, why) => {
      const before = await heads();
      const result = await byCommand(command, branch);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(new RegExp(`^dogsled: ${command}: --branch ".+": ${why}\\n$`));
      expect(await heads()).toBe(before);
      expect(await worktreeList(repo)).toHaveLength(1);
      expect(existsSync(join(repo.main, '.worktrees'))).toBe(false);
    },
    60_000,
  );

  it('is what real git fails on, and the odd names git can use are kept', async () => {
    const scratch = join(repo.root, 'scratch-worktrees');
    await mkdir(scratch);
    const git = (args: string[]) =>
      execGit('git', args, { cwd: repo.main, env: gitTestEnv() }).then(
        () => true,
        () => false,
      );
    const tryWorktree = async (name: string) => {
      const accepted = await git(['check-ref-format', '--branch', name]);
      const made = await git(['worktree', 'add', '-q', '-b', name, join(scratch, name.replaceAll('/', '-'))]);
      return { accepted, made };
    };
    for (const name of ['@', LONG]) {
      expect(worktreeNameProblem(name), name).not.toBeNull();
      expect(await tryWorktree(name), name).toEqual({ accepted: true, made: false });
      // Git made the branch all the same: the stray this rule keeps dogsled from leaving.
      expect(await refSha(repo, `refs/heads/${name}`), name).not.toBeNull();
      await repo.git(['update-ref', '-d', `refs/heads/${name}`]);
    }
    for (const name of [
      'a@',
      '@a',
      '@/a',
      'x/HEAD',
      'HEAD/x',
      'FETCH_HEAD',
      'x/-y',
      'é',
      'a{b',
      'x'.repeat(240),
    ]) {
      expect(worktreeNameProblem(name), name).toBeNull();
      expect(await tryWorktree(name), name).toEqual({ accepted: true, made: true });
    }
    // What git refuses itself is refused by the rule too, whatever git's version.
    for (const name of ['HEAD', '-x', '--help']) {
      expect(worktreeNameProblem(name), name).not.toBeNull();
      expect(await git(['check-ref-format', '--branch', name]), name).toBe(false);
    }
  }, 60_000);
});

describe('a git worktree add that fails', () => {
  /** `.git/worktrees` as a file: git cannot make its record of the worktree, after the branch. */
  async function breakWorktrees(): Promise<void> {
    await rm(join(repo.main, '.git', 'worktrees'), { recursive: true, force: true });
    await writeFile(join(repo.main, '.git', 'worktrees'), '');
  }

  it('removes the branch it made, and records nothing', async () => {
    await breakWorktrees();
    const before = await heads();
    const result = await byCommand('place', 'feat/new');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^dogsled: place: cannot make worktree .*feat-new: git worktree exited 128: .*; removed branch feat\/new, which this attempt made\n$/,
    );
    expect(await heads()).toBe(before);
    expect(await refSha(repo, 'refs/heads/feat/new')).toBeNull();
    expect((await registries(repo)).worktrees).toBeNull();
  }, 60_000);

  it('leaves a branch that was there before as it was', async () => {
    await repo.git(['branch', 'feat/old', 'main']);
    const tip = await refSha(repo, 'refs/heads/feat/old');
    await breakWorktrees();
    const before = await heads();
    const result = await byCommand('place', 'feat/old');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/; branch feat\/old stays as it was\n$/);
    expect(await heads()).toBe(before);
    expect(await refSha(repo, 'refs/heads/feat/old')).toBe(tip);
  }, 60_000);

  it('removes the worktree a failing post-checkout hook leaves, then the branch', async () => {
    const hook = join(repo.main, '.git', 'hooks', 'post-checkout');
    await mkdir(join(repo.main, '.git', 'hooks'), { recursive: true });
    await writeFile(hook, '#!/bin/sh\nexit 3\n');
    await chmod(hook, 0o755);
    const before = await heads();
    const result = await byCommand('place', 'feat/hooked');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /git worktree exited 3.*; removed branch feat\/hooked, which this attempt made\n$/,
    );
    expect(await heads()).toBe(before);
    expect(await worktreeList(repo)).toHaveLength(1);
    expect(existsSync(join(repo.main, '.worktrees', 'feat-hooked'))).toBe(false);
  }, 60_000);
});
