// The sweep through a real `serve` on a real repository: no request, no survey; a request gets one
// pass that removes what loses nothing (a landed worktree) and keeps the rest byte for byte, writes
// sweep.json, sweeps.jsonl and its journal, and shows in status; sweep.sock wakes a service whose
// interval is long (0600, like every state file), and a sweep.sock path that is a directory costs only the wake-up.

import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../../service/hosts/view-schemas.js';
import { statePaths } from '../../../service/state/paths.js';
import { SweepPassSchema } from '../../../service/state/schemas/sweep-schemas.js';
import { requestSweep } from '../../../service/sweep/request.js';
import { askForSweepNow } from '../../../service/sweep/request-now.js';
import { exited, type Sandbox, sandbox, startCli } from '../../helpers/cli.js';
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
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let repo: Repo;
let landed: string;
const running: Array<ReturnType<typeof startCli>> = [];

beforeEach(async () => {
  box = await sandbox();
  repo = await freshRepo();
  landed = await landedWorktree(repo);
  // The sweep surveys the repositories dogsled knows; this one by config.
  await writeFile(box.configPath, `[cleanup]\nrepositories = [${JSON.stringify(repo.main)}]\n`);
});

afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited(child);
  }
  await box.cleanup();
});

afterAll(removeScenarios);

const io = () => ({ paths: statePaths(box.state), now: Date.now, warn: () => {} });

async function latest() {
  return SweepPassSchema.parse(JSON.parse(await readFile(join(box.state, 'sweep.json'), 'utf8')));
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('the sweep in serve', () => {
  it('surveys nothing without a request, and makes one pass per request that removes only what loses nothing', async () => {
    const dirty = await repo.worktree('dirty');
    await writeFiles(dirty, { 'notes.txt': 'unsaved\n' });
    const kept = await snapshotTree(dirty);
    await repo.git(['branch', 'merged', 'main']);

    const idle = await runCliIn(box.root, ['serve', '--once'], box.env);
    expect(idle.code, idle.stderr).toBe(0);
    expect(await exists(join(box.state, 'sweep.json'))).toBe(false);
    expect(await exists(landed)).toBe(true);

    await mkdir(box.state, { recursive: true });
    await requestSweep(io(), 'w1:p1');
    const once = await runCliIn(box.root, ['serve', '--once'], box.env);
    expect(once.code, once.stderr).toBe(0);
    expect(once.stderr).toContain(`dogsled serve: sweep: removed worktree ${landed} (branch landed deleted)`);
    expect(once.stderr).toContain(`dogsled serve: sweep: removed branch merged in ${repo.main}\n`);
    expect(once.stderr).toContain(`dogsled serve: sweep: held: ${dirty} is landed but dirty (1 path)\n`);
    expect(once.stderr).toMatch(/dogsled serve: sweep: pass done: 2 removed/);
    const pass = await latest();
    expect(pass.results.map((r) => [r.kind, r.path])).toEqual([
      ['worktree', landed],
      ['branch', repo.main],
    ]);
    expect(pass.failures).toEqual([]);
    expect(await exists(landed)).toBe(false);
    expect(await refSha(repo, 'refs/heads/landed')).toBeNull();
    expect(await snapshotTree(dirty)).toEqual(kept);
    const history = (await readFile(join(box.state, 'sweeps.jsonl'), 'utf8')).trim().split('\n');
    expect(history).toHaveLength(1);

    // Answered: the next run surveys nothing.
    const again = await runCliIn(box.root, ['serve', '--once'], box.env);
    expect(again.stderr).not.toContain('sweep:');
    expect((await readFile(join(box.state, 'sweeps.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(1);

    const status = await runCliIn(repo.main, ['status', '--json'], box.env);
    expect(StatusReportSchema.parse(JSON.parse(status.stdout)).sweep?.results).toHaveLength(2);
    const human = await runCliIn(repo.main, ['status'], box.env);
    expect(human.stdout).toMatch(/cleanup {3}last pass \d+(ms|s) ago: 2 removed/);
  });

  it('holds the directory the service runs in and does not sweep its repository for being there', async () => {
    await writeFile(box.configPath, '');
    await mkdir(box.state, { recursive: true });
    await requestSweep(io(), null);
    const once = await runCliIn(repo.main, ['serve', '--once'], box.env);
    expect(once.code, once.stderr).toBe(0);
    const pass = await latest();
    expect(pass.results).toEqual([]);
    expect(await exists(landed)).toBe(true);
    expect(await refSha(repo, 'refs/heads/landed')).not.toBeNull();
  });

  it('wakes through sweep.sock well before its interval', async () => {
    const child = startCli(['serve', '--interval', '3600'], box.env, box.root);
    running.push(child);
    await waitFor(
      'sweep.sock',
      async () => ((await exists(join(box.state, 'sweep.sock'))) ? true : undefined),
      { timeoutMs: 20_000 },
    );
    // Like every state file, only its user may use it.
    expect((await stat(join(box.state, 'sweep.sock'))).mode & 0o777).toBe(0o600);
    const asked = await requestSweep(io(), null);
    expect(asked.woke).toBe(true);
    const pass = await waitFor('a pass', () => latest().catch(() => undefined), { timeoutMs: 30_000 });
    expect(pass.error).toBeNull();
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
    expect(await exists(join(box.state, 'sweep.sock'))).toBe(false);
  });

  it("wakes through sweep.sock at a lean hook's request too (written at once, poked through the pipe handle)", async () => {
    const child = startCli(['serve', '--interval', '3600'], box.env, box.root);
    running.push(child);
    await waitFor(
      'sweep.sock',
      async () => ((await exists(join(box.state, 'sweep.sock'))) ? true : undefined),
      { timeoutMs: 20_000 },
    );
    await askForSweepNow(io(), 'w1:p1');
    const pass = await waitFor('a pass', () => latest().catch(() => undefined), { timeoutMs: 30_000 });
    expect(pass.error).toBeNull();
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
  });

  it('warns once when sweep.sock is a directory and still finds the request on the interval', async () => {
    await mkdir(join(box.state, 'sweep.sock'), { recursive: true });
    // Its sibling, the peer-read socket, is bound the same way (bindServiceSocket): the same one warning.
    await mkdir(join(box.state, 'peer-read.sock'), { recursive: true });
    const child = startCli(['serve', '--interval', '0.5'], box.env, box.root);
    running.push(child);
    await waitFor(
      'the warning',
      async () => (child.output().includes('sweep.sock is a directory') ? true : undefined),
      { timeoutMs: 20_000 },
    );
    const asked = await requestSweep(io(), null);
    expect(asked.woke).toBe(false);
    const pass = await waitFor('a pass', () => latest().catch(() => undefined), { timeoutMs: 30_000 });
    expect(pass.error).toBeNull();
    expect(child.output().match(/sweep\.sock is a directory/g)).toHaveLength(1);
    expect(
      child
        .output()
        .match(/peer-read\.sock is a directory, not a socket; commands read their peers themselves/g),
    ).toHaveLength(1);
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
  });
});
