// `dogsled doctor` through the built CLI, run from inside a real repository: the JSON document and
// its schema, the human report, repositories found without scanning, and that nothing changes.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReportSchema } from '../../../service/cleanup/doctor-report.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import {
  edit,
  freshRepo,
  landedWorktree,
  type Repo,
  removeScenarios,
  runCliIn,
  writeFiles,
} from '../../helpers/git-scenarios.js';

let box: Sandbox;
let repo: Repo;
let landed: string;
let dirty: string;

beforeAll(async () => {
  box = await sandbox();
  repo = await freshRepo();
  landed = await landedWorktree(repo);
  dirty = await repo.worktree('dirty');
  await writeFiles(dirty, { 'notes.txt': 'unsaved\n' });
  await repo.branch('local', [{ 'c.txt': edit('c', 3, 'mine') }]);
}, 120_000);

afterAll(async () => {
  await box.cleanup();
  await removeScenarios();
});

describe('doctor --json', () => {
  it('is one document that matches its schema, with verdicts, proofs and findings, and changes nothing', async () => {
    const refsBefore = await repo.git(['for-each-ref']);
    const listBefore = await repo.git(['worktree', 'list', '--porcelain']);
    const result = await runCliIn(repo.main, ['doctor', '--json'], box.env);
    expect(result.code, result.stderr).toBe(0);
    const report = DoctorReportSchema.parse(JSON.parse(result.stdout));
    expect(report.repositories).toEqual([
      expect.objectContaining({ path: repo.main, sources: ['caller'], state: 'ok', default_branch: 'main' }),
    ]);
    const byPath = new Map(report.worktrees.map((entry) => [entry.path, entry]));
    expect(byPath.get(landed)).toMatchObject({
      state: 'removable',
      proof: { checkout: 'clean', unlock: true, delete_branch: true, commits: { kind: 'applied' } },
    });
    expect(byPath.get(dirty)).toMatchObject({ state: 'landed_dirty', removable: false, proof: null });
    expect(report.landed_dirty).toEqual([
      { repository: repo.main, checkout: dirty, ref: 'dirty', dirty: 1, paths: ['notes.txt'] },
    ]);
    expect(report.branches.find((entry) => entry.branch === 'local')).toMatchObject({ removable: false });
    expect(report.processes.error).toBeNull();
    expect(await repo.git(['for-each-ref'])).toBe(refsBefore);
    expect(await repo.git(['worktree', 'list', '--porcelain'])).toBe(listBefore);
  });
});

describe('doctor for people', () => {
  it('shows each section within 80 columns and counts what prune would remove', async () => {
    const result = await runCliIn(repo.main, ['doctor'], box.env);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines).toContain('worktrees');
    expect(lines).toContain('  remove  .worktrees/landed (landed)');
    expect(lines).toContain('  dirty   .worktrees/dirty (dirty)');
    expect(lines.at(-1)).toBe('1 removable: dogsled prune shows the plan');
  });
});

describe('repositories', () => {
  it('come from the caller, cleanup.repositories and the registry, and an absent remembered one is removable', async () => {
    const gone = join(box.root, 'gone-repo');
    const configured = join(box.root, 'configured-gone');
    await writeFile(
      box.configPath,
      `[cleanup]\nrepositories = [${JSON.stringify(configured)}, ${JSON.stringify(repo.main)}]\n`,
    );
    await writeFiles(box.state, {
      'repositories.json': JSON.stringify({
        version: 1,
        repositories: [{ path: gone, added_ms: 1, last_seen_ms: 1 }],
      }),
    });
    try {
      const result = await runCliIn(box.root, ['doctor', '--json'], box.env);
      expect(result.code, result.stderr).toBe(0);
      const report = DoctorReportSchema.parse(JSON.parse(result.stdout));
      expect(report.repositories).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: repo.main, sources: ['config'], state: 'ok' }),
          expect.objectContaining({ path: gone, sources: ['remembered'], state: 'absent', removable: true }),
          expect.objectContaining({
            path: configured,
            sources: ['config'],
            state: 'absent',
            removable: false,
          }),
        ]),
      );
    } finally {
      await writeFile(box.configPath, '');
      await rm(join(box.state, 'repositories.json'));
    }
  });

  it('outside any repository and with nothing configured, finds nothing to prune', async () => {
    const result = await runCliIn(box.home, ['doctor'], box.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('nothing to prune');
  });
});

describe('doctor --host', () => {
  it('accepts the local host and refuses a host the fleet does not know in one line, exit 2', async () => {
    expect((await runCliIn(box.home, ['doctor', '--host', 'local', '--json'], box.env)).code).toBe(0);
    const result = await runCliIn(box.home, ['doctor', '--host', 'netcup'], box.env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('dogsled: doctor: --host: unknown host "netcup" (known: local)\n');
  });
});
