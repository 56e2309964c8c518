import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { StateIO } from '../../../service/state/io.js';
import { statePaths } from '../../../service/state/paths.js';
import {
  dropStaleRepositories,
  dropStaleWorktrees,
  dropWorktreeRegistration,
  pathIsAbsent,
  readRegistries,
  rememberRepository,
  rememberWorktree,
} from '../../../service/state/records/registries.js';
import { tempDir } from '../../helpers/tree.js';

const NOW = 1_700_000_000_000;

async function setup(): Promise<{
  io: StateIO;
  root: string;
  warnings: string[];
  clock: { now: number };
}> {
  const root = await tempDir();
  const warnings: string[] = [];
  const clock = { now: NOW };
  const io = {
    paths: statePaths(join(root, 'state')),
    now: () => clock.now,
    warn: (l: string) => warnings.push(l),
  };
  return { io, root, warnings, clock };
}

describe('registries', () => {
  test('read as empty before anything was remembered', async () => {
    const { io } = await setup();
    expect(await readRegistries(io)).toEqual({ repositories: [], worktrees: [] });
  });

  test('remembering a repository twice keeps one record and refreshes last_seen_ms and origin', async () => {
    const { io, root, clock } = await setup();
    const repo = join(root, 'repo');
    await rememberRepository(io, repo);
    clock.now = NOW + 5_000;
    const record = await rememberRepository(io, `${repo}/`, 'git@example.com:ada/repo.git');
    expect(record).toEqual({
      path: repo,
      added_ms: NOW,
      last_seen_ms: NOW + 5_000,
      origin: 'git@example.com:ada/repo.git',
    });
    expect((await readRegistries(io)).repositories).toEqual([record]);
  });

  test('read-modify-write keeps fields that a newer dogsled wrote', async () => {
    const { io, root } = await setup();
    const repo = join(root, 'repo');
    await mkdir(io.paths.dir, { recursive: true });
    await writeFile(
      io.paths.repositories,
      JSON.stringify({
        version: 1,
        future: 'top',
        repositories: [{ path: repo, added_ms: 1, last_seen_ms: 1, color: 'red' }],
      }),
    );
    await rememberRepository(io, repo);
    const file = JSON.parse(await readFile(io.paths.repositories, 'utf8'));
    expect(file).toEqual({
      version: 1,
      future: 'top',
      repositories: [{ path: repo, added_ms: 1, last_seen_ms: NOW, color: 'red' }],
    });
  });

  test('a new worktree at the path of an old one replaces its record whole, and is dropped after removal', async () => {
    const { io, root } = await setup();
    const repo = join(root, 'repo');
    const path = join(repo, '.worktrees', 'feat-a');
    await rememberWorktree(io, {
      path,
      repository: repo,
      branch: 'feat/a',
      created_ms: NOW,
      anchor_workspace: 'w3',
    });
    await rememberWorktree(io, { path, repository: repo, branch: 'feat/a', created_ms: NOW + 1 });
    expect((await readRegistries(io)).worktrees).toEqual([
      { path, repository: repo, branch: 'feat/a', created_ms: NOW + 1 },
    ]);
    expect(await dropWorktreeRegistration(io, path)).toBe(true);
    expect(await dropWorktreeRegistration(io, path)).toBe(false);
    expect((await readRegistries(io)).worktrees).toEqual([]);
  });

  test('repository registrations survive the removal of their last worktree', async () => {
    const { io, root } = await setup();
    const repo = join(root, 'repo');
    const path = join(repo, '.worktrees', 'feat-a');
    await rememberRepository(io, repo);
    await rememberWorktree(io, { path, repository: repo, branch: 'feat/a', created_ms: NOW });
    await dropWorktreeRegistration(io, path);
    expect((await readRegistries(io)).repositories.map((record) => record.path)).toEqual([repo]);
  });

  test('a corrupt registry is quarantined with one warning and reads as empty', async () => {
    const { io, warnings } = await setup();
    await mkdir(io.paths.dir, { recursive: true });
    await writeFile(io.paths.worktrees, '{"version":1,"worktrees":[{"path":""}]}');
    expect((await readRegistries(io)).worktrees).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/^dogsled: warning: worktrees\.json was corrupt/)]);
  });
});

describe('dropping stale registrations', () => {
  test('drops only absent paths and says why every other candidate stays', async () => {
    const { io, root } = await setup();
    const [gone, present, dangling] = ['gone', 'present', 'dangling'].map((name) => join(root, name)) as [
      string,
      string,
      string,
    ];
    await mkdir(present);
    await symlink(join(root, 'nowhere'), dangling);
    for (const path of [gone, present, dangling]) await rememberRepository(io, path);
    const report = await dropStaleRepositories(
      io,
      [gone, present, dangling, join(root, 'unknown')],
      pathIsAbsent,
    );
    expect(report.dropped.map((record) => record.path)).toEqual([gone]);
    expect(report.kept).toEqual([
      { path: present, reason: 'path exists' },
      { path: dangling, reason: 'path exists' },
      { path: join(root, 'unknown'), reason: 'not registered' },
    ]);
    expect((await readRegistries(io)).repositories.map((record) => record.path)).toEqual([present, dangling]);
  });

  test('a path that cannot be checked stays, with the reason', async () => {
    const { io, root } = await setup();
    const repo = join(root, 'repo');
    await rememberRepository(io, repo);
    const report = await dropStaleRepositories(io, [repo], async () => {
      throw new Error('EACCES: permission denied');
    });
    expect(report).toEqual({
      dropped: [],
      kept: [{ path: repo, reason: 'cannot check: EACCES: permission denied' }],
    });
  });

  test('absence is judged under the lock, so a path recreated after the survey keeps its record', async () => {
    const { io, root } = await setup();
    const path = join(root, 'wt');
    await rememberWorktree(io, { path, repository: join(root, 'repo'), branch: 'b', created_ms: NOW });
    // The survey saw it absent; by the time of the locked recheck it exists again.
    expect(await pathIsAbsent(path)).toBe(true);
    await mkdir(path);
    const lockHeld: boolean[] = [];
    const report = await dropStaleWorktrees(io, [path], async (candidate) => {
      lockHeld.push(!(await pathIsAbsent(`${io.paths.worktrees}.lock`)));
      return pathIsAbsent(candidate);
    });
    expect(lockHeld).toEqual([true]);
    expect(report.dropped).toEqual([]);
    expect((await readRegistries(io)).worktrees).toHaveLength(1);
    await rm(path, { recursive: true });
    expect((await dropStaleWorktrees(io, [path], pathIsAbsent)).dropped).toHaveLength(1);
  });

  test('dropping a repository leaves its worktree records', async () => {
    const { io, root } = await setup();
    const repo = join(root, 'repo');
    await rememberRepository(io, repo);
    await rememberWorktree(io, { path: join(root, 'wt'), repository: repo, branch: 'b', created_ms: NOW });
    await dropStaleRepositories(io, [repo], pathIsAbsent);
    const after = await readRegistries(io);
    expect(after.repositories).toEqual([]);
    expect(after.worktrees).toHaveLength(1);
  });

  test('pathIsAbsent is true for a path under a plain file', async () => {
    const { root } = await setup();
    await writeFile(join(root, 'file'), 'x');
    expect(await pathIsAbsent(join(root, 'file', 'below'))).toBe(true);
  });
});
