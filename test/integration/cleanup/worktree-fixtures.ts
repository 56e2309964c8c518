// Shared set-up of the `--branch` worktree tests: a fake Herdr per file, a fresh repository with a
// bare remote per test, the service function's dependencies, and readers for what it left behind
// (git's worktree list with lock reasons, the registries, Herdr's workspaces).

import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { statePaths } from '../../../service/state/paths.js';
import { type BranchWorktreeIO, ensureBranchWorktree } from '../../../service/worktrees/branch-worktree.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import {
  freshRepo,
  gitTestEnv,
  type Repo,
  removeScenarios,
  snapshotTree,
} from '../../helpers/git-scenarios.js';
import { tempDir } from '../../helpers/tree.js';

const run = promisify(execFile);

// biome-ignore lint/suspicious/noExplicitAny: records from the fake are plain JSON, checked by the assertions
export type Json = any;

export interface WorktreeSuite {
  dir: string;
  herdr: FakeHerdr;
  repo: Repo;
}

/** Registers the file's hooks: one fake Herdr for the file, a fresh repository for each test. */
export function worktreeSuite(prefix: string): WorktreeSuite {
  const suite = {} as WorktreeSuite;
  beforeAll(async () => {
    suite.dir = await tempDir(prefix);
    suite.herdr = await startFakeHerdr({ dir: suite.dir, env: { HOME: suite.dir } });
  });
  afterAll(async () => {
    await suite.herdr?.stop();
    await removeScenarios();
    await rm(suite.dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    suite.repo = await freshRepo();
  });
  return suite;
}

export function depsFor(repo: Repo, herdr: FakeHerdr, extra: Partial<BranchWorktreeIO> = {}) {
  const warnings: string[] = [];
  const deps: BranchWorktreeIO = {
    paths: statePaths(join(repo.root, 'state')),
    now: () => Date.now(),
    warn: (line) => warnings.push(line),
    env: herdr.env,
    home: repo.root,
    ...extra,
  };
  return { deps, warnings };
}

export function ensure(
  repo: Repo,
  herdr: FakeHerdr,
  branch: string,
  base?: string,
  extra: Partial<BranchWorktreeIO> = {},
) {
  return ensureBranchWorktree(
    { repo: repo.main, branch, base, command: 'agent' },
    depsFor(repo, herdr, extra).deps,
  );
}

export interface ListedWorktree {
  path: string;
  branch: string | null;
  locked: string | null;
}

/** `git worktree list --porcelain -z`, reduced to what the tests assert. */
export async function worktreeList(repo: Repo): Promise<ListedWorktree[]> {
  const { stdout } = await run('git', ['worktree', 'list', '--porcelain', '-z'], {
    cwd: repo.main,
    env: gitTestEnv(),
  });
  const out: ListedWorktree[] = [];
  let current: ListedWorktree | undefined;
  for (const field of stdout.split('\0')) {
    if (field.startsWith('worktree ')) {
      current = { path: field.slice('worktree '.length), branch: null, locked: null };
      out.push(current);
    } else if (current && field.startsWith('branch '))
      current.branch = field.slice('branch refs/heads/'.length);
    else if (current && (field === 'locked' || field.startsWith('locked '))) current.locked = field.slice(7);
  }
  return out;
}

export async function registries(repo: Repo): Promise<{ repositories: Json; worktrees: Json }> {
  const read = async (name: string) =>
    JSON.parse(await readFile(join(repo.root, 'state', name), 'utf8').catch(() => 'null'));
  return { repositories: await read('repositories.json'), worktrees: await read('worktrees.json') };
}

export async function workspaces(herdr: FakeHerdr): Promise<Json[]> {
  return (await herdr.call('workspace.list', {})).result.workspaces;
}

/** The repository (main checkout with .git, and the bare remote) byte for byte. */
export async function repoSnapshot(repo: Repo): Promise<Record<string, string>> {
  return { ...(await snapshotTree(repo.main)), ...prefixed('remote:', await snapshotTree(repo.remote)) };
}

function prefixed(prefix: string, tree: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tree).map(([key, value]) => [`${prefix}${key}`, value]));
}
