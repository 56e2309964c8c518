// A repository whose dogsled.toml cannot be used (an unknown key, a bad placeholder, something that
// is not a file): doctor reports it as a repository warning and plans no worktree removal, since
// each one's teardown would fail; prune then has nothing to fail on. Fixing the file brings the plan
// back. Through the built CLI, from inside the repository.
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReportSchema, PruneReportSchema } from '../../../service/cleanup/doctor-report.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import {
  freshRepo,
  landedWorktree,
  type Repo,
  refSha,
  removeScenarios,
  runCliIn,
  snapshotTree,
} from '../../helpers/git-scenarios.js';

const run = promisify(execFile);
let box: Sandbox;
let repo: Repo;
let landed: string;
let config: string;

beforeAll(async () => {
  box = await sandbox();
  repo = await freshRepo();
  landed = await landedWorktree(repo);
  config = join(repo.main, 'dogsled.toml');
}, 120_000);

afterAll(async () => {
  await box.cleanup();
  await removeScenarios();
});

async function doctor() {
  const result = await runCliIn(repo.main, ['doctor', '--json'], box.env);
  expect(result.code, result.stderr).toBe(0);
  return DoctorReportSchema.parse(JSON.parse(result.stdout));
}

describe('a dogsled.toml that cannot be used', () => {
  it.each([
    ['an unknown key', '[worktree]\nteardwn = ["true"]\n', 'unknown key "worktree.teardwn"'],
    ['a bad placeholder', '[worktree]\nteardown = ["rm -rf {nope}"]\n', 'worktree.teardown[0]: '],
    ['malformed TOML', '[worktree\n', 'malformed TOML at line 1'],
  ])('with %s is a repository warning, and no worktree is planned or removed', async (_, text, problem) => {
    await writeFile(config, text);
    const before = await snapshotTree(landed);
    try {
      const report = await doctor();
      const warning = `repository config ${config}: ${problem}`;
      expect(report.repositories[0]?.warnings).toEqual([expect.stringContaining(warning)]);
      expect(report.repositories[0]?.warnings[0]).toMatch(/; no worktree is removed until it is fixed$/);
      expect(report.worktrees.find((entry) => entry.path === landed)).toMatchObject({
        state: 'kept',
        removable: false,
        reason: expect.stringMatching(/^its teardown cannot run: repository config /),
      });
      const human = await runCliIn(repo.main, ['doctor'], box.env);
      expect(human.stdout).toContain('warning: repository config');
      expect(human.stdout).toContain('  keep    .worktrees/landed (landed)');

      const pruned = await runCliIn(repo.main, ['prune', '--yes', '--json', 'worktrees'], box.env);
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(PruneReportSchema.parse(JSON.parse(pruned.stdout))).toEqual({
        results: [],
        skipped: [],
        failures: [],
      });
      expect(await snapshotTree(landed)).toEqual(before);
      expect(await refSha(repo, 'refs/heads/landed')).not.toBeNull();
    } finally {
      await rm(config, { force: true });
    }
  });

  it('that is a directory or a FIFO is a warning too, and doctor does not wait on the FIFO', async () => {
    await mkdir(config);
    try {
      expect((await doctor()).repositories[0]?.warnings[0]).toContain(
        `repository config ${config}: not a regular file`,
      );
    } finally {
      await rm(config, { recursive: true });
    }
    await run('mkfifo', [config]);
    try {
      expect((await doctor()).repositories[0]?.warnings[0]).toContain('not a regular file');
    } finally {
      await rm(config);
    }
  });

  it('once fixed, the worktree is planned again and prune removes it', async () => {
    await writeFile(config, '[worktree]\nteardown = ["true"]\n');
    try {
      expect((await doctor()).worktrees.find((entry) => entry.path === landed)?.state).toBe('removable');
      const pruned = await runCliIn(repo.main, ['prune', '--yes', '--json', 'worktrees'], box.env);
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(JSON.parse(pruned.stdout).results).toEqual([expect.objectContaining({ path: landed })]);
    } finally {
      await rm(config, { force: true });
    }
  });
});
