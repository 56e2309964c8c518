// `dogsled prune` through the built CLI: the plan and the question (a real terminal via script(1)),
// --yes and --json, categories, and exit 2 on any failure. Kept checkouts come through byte for byte.
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PruneReportSchema } from '../../../service/cleanup/doctor-report.js';
import { stripEscapes } from '../../../service/core/text/clean.js';
import { CLI, type Sandbox, sandbox } from '../../helpers/cli.js';
import {
  freshRepo,
  landedWorktree,
  type Repo,
  refSha,
  removeScenarios,
  runCliIn,
  snapshotTree,
  writeFiles,
} from '../../helpers/git-scenarios.js';

let box: Sandbox;
let repo: Repo;
let landed: string;

beforeEach(async () => {
  box = await sandbox();
  repo = await freshRepo();
  landed = await landedWorktree(repo);
});

afterEach(async () => {
  await box.cleanup();
});

/** Runs prune on a pseudo-terminal (util-linux script), typing `keys` at the question. */
function pruneOnTerminal(keys: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} prune worktrees`;
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: repo.main, env: box.env });
    let output = '';
    let answered = false;
    child.stdin.on('error', () => {});
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!answered && output.includes('[y/N]')) {
        answered = true;
        child.stdin.write(keys);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: stripEscapes(output) }));
  });
}

afterAll(removeScenarios);

describe('the plan and the question', () => {
  it('without a terminal and without --yes, prints the plan, removes nothing and exits 2', async () => {
    const result = await runCliIn(repo.main, ['prune'], box.env);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('prune plan: 1 entry\n  remove  worktree .worktrees/landed (landed)\n');
    expect(result.stderr).toBe(
      'dogsled: prune: not a terminal, so nothing was removed: pass --yes to remove the plan above\n',
    );
    expect(await refSha(repo, 'refs/heads/landed')).not.toBeNull();
  });

  it('on a terminal, asks first: "n" keeps everything, "y" removes', async () => {
    const declined = await pruneOnTerminal('n\n');
    expect(declined.code).toBe(0);
    expect(declined.output).toContain('Remove 1 entry? [y/N]');
    expect(declined.output).toContain('nothing removed');
    expect(await refSha(repo, 'refs/heads/landed')).not.toBeNull();
    const accepted = await pruneOnTerminal('y\n');
    expect(accepted.code, accepted.output).toBe(0);
    expect(accepted.output).toContain(`removed worktree ${landed} (branch landed deleted)`);
    expect(await refSha(repo, 'refs/heads/landed')).toBeNull();
  });

  it('Ctrl-D at the question is a no, and Ctrl-C interrupts (130): one line each, never a stack trace', async () => {
    const eof = await pruneOnTerminal('\u0004');
    expect(eof.code, eof.output).toBe(0);
    expect(eof.output).toContain('nothing removed');
    expect(eof.output).not.toContain('internal error');
    const interrupted = await pruneOnTerminal('\u0003');
    expect(interrupted.code, interrupted.output).toBe(130);
    expect(interrupted.output).toContain('nothing removed');
    expect(interrupted.output).not.toContain('internal error');
    expect(await refSha(repo, 'refs/heads/landed')).not.toBeNull();
  });
});

describe('prune --yes --json', () => {
  it('returns {results,skipped,failures}, removes what lost nothing and keeps the rest untouched', async () => {
    const dirty = await repo.worktree('dirty');
    await writeFiles(dirty, { 'notes.txt': 'unsaved\n' });
    const local = await repo.worktree('local');
    await repo.commit({ 'l.txt': 'mine\n' }, 'local work', local);
    const kept = { dirty: await snapshotTree(dirty), local: await snapshotTree(local) };
    const localTip = await refSha(repo, 'refs/heads/local');

    const result = await runCliIn(repo.main, ['prune', '--yes', '--json'], box.env);
    expect(result.code, result.stderr).toBe(0);
    const report = PruneReportSchema.parse(JSON.parse(result.stdout));
    expect(report).toEqual({
      results: [
        {
          kind: 'worktree',
          path: landed,
          branch: 'landed',
          branch_deleted: true,
          panes: [],
          already_removed: false,
          detail: '',
        },
      ],
      skipped: [],
      failures: [],
    });
    expect(result.stderr).toContain('prune plan: 1 entry');
    expect(await snapshotTree(dirty)).toEqual(kept.dirty);
    expect(await snapshotTree(local)).toEqual(kept.local);
    expect(await refSha(repo, 'refs/heads/local')).toBe(localTip);
  });

  it('with nothing removable prints an empty result and exits 0', async () => {
    expect((await runCliIn(repo.main, ['prune', '--yes', '--json', 'worktrees'], box.env)).code).toBe(0);
    const again = await runCliIn(repo.main, ['prune', '--yes', '--json'], box.env);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ results: [], skipped: [], failures: [] });
  });

  it('a failed teardown is a failure with its last lines, and the exit status is 2', async () => {
    await repo.commit(
      { 'dogsled.toml': '[worktree]\nteardown = ["echo cleaning up; echo disk is read-only >&2; exit 4"]\n' },
      'config',
    );
    const result = await runCliIn(repo.main, ['prune', '--yes', '--json'], box.env);
    expect(result.code).toBe(2);
    const report = PruneReportSchema.parse(JSON.parse(result.stdout));
    expect(report.results).toEqual([]);
    expect(report.failures).toEqual([
      {
        kind: 'worktree',
        path: landed,
        branch: 'landed',
        error: expect.stringMatching(
          /^teardown command failed \(exit 4\): .*\n {2}cleaning up\n {2}disk is read-only$/,
        ),
      },
    ]);
    expect(await refSha(repo, 'refs/heads/landed')).not.toBeNull();
    const human = await runCliIn(repo.main, ['prune', '--yes'], box.env);
    expect(human.code).toBe(2);
    expect(human.stderr).toContain(`failed: worktree ${landed}: teardown command failed (exit 4)`);
    expect(human.stderr).toContain('  disk is read-only');
  });
});

describe('arguments', () => {
  it('only the named categories are pruned', async () => {
    await repo.branch('pushed', [{ 'p.txt': 'p\n' }]);
    await repo.push('pushed');
    const result = await runCliIn(repo.main, ['prune', '--yes', '--json', 'branches'], box.env);
    expect(result.code, result.stderr).toBe(0);
    expect(PruneReportSchema.parse(JSON.parse(result.stdout)).results).toEqual([
      expect.objectContaining({ kind: 'branch', branch: 'pushed', path: repo.main }),
    ]);
    expect(await refSha(repo, 'refs/heads/landed')).not.toBeNull();
  });

  it('an unknown category, panes without Herdr and another host are one-line errors, exit 2', async () => {
    const unknown = await runCliIn(repo.main, ['prune', 'worktress'], box.env);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe(
      'dogsled: prune: unknown category "worktress" (choose from worktrees, branches, jobs, targets, repositories, panes)\n',
    );
    const panes = await runCliIn(repo.main, ['prune', '--yes', 'panes'], box.env);
    expect(panes).toMatchObject({ code: 2, stdout: '' });
    expect(panes.stderr).toMatch(/^dogsled: prune panes: needs Herdr or tmux \(/);
    const host = await runCliIn(repo.main, ['prune', '--yes', '--host', 'netcup'], box.env);
    expect(host.code).toBe(2);
    expect(host.stderr).toBe('dogsled: prune: --host: unknown host "netcup" (known: local)\n');
    expect(await refSha(repo, 'refs/heads/landed')).not.toBeNull();
  });
});
