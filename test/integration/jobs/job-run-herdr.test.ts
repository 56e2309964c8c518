// `dogsled run` in the fake Herdr (real shells in real PTYs): the job's tab opens where the spec's
// rules put it (the worktree's workspace, else the main checkout's, else a new workspace for the
// repository; outside any repository the caller's workspace), `run --wait` streams the job's output
// and exits with its status, and a tab Herdr refuses ends the record `launch failed`.

import { execFileSync } from 'node:child_process';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import type { ServiceLock } from '../../../service/state/records/service-lock.js';
import { JobRecordSchema } from '../../../service/state/schemas/host-schemas.js';
import { ItemsSchema } from '../../../service/state/schemas/queue-items-schemas.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { holdServiceLock } from '../../helpers/service-holder.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

let box: Sandbox;
let lock: ServiceLock;
let herdr: FakeHerdr;
let env: NodeJS.ProcessEnv;
/** The caller's workspace and pane: created second, so it is not Herdr's active workspace. */
let caller: { workspace: string; pane: string };
let active: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });
}

async function repository(name: string): Promise<string> {
  const path = join(box.home, 'src', name);
  await mkdir(path, { recursive: true });
  git(path, '-c', 'init.defaultBranch=main', 'init', '-q');
  await writeFile(join(path, 'README.md'), `${name}\n`);
  git(path, 'add', '.');
  git(path, 'commit', '-qm', 'first');
  return realpath(path);
}

async function ok(method: string, params: Record<string, unknown> = {}) {
  const reply = await herdr.call(method, params);
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

async function record(id: string): Promise<JobRecord> {
  return JobRecordSchema.parse(JSON.parse(await readFile(join(box.state, 'jobs', `${id}.json`), 'utf8')));
}

/** `run --json` without waiting; the started job's record. */
async function started(cwd: string, command: string[] = ['sleep', '1']): Promise<JobRecord> {
  const result = await runCli(['run', '--json', '--cwd', cwd, '--', ...command], env);
  // One assertion, so a failure shows the run's stderr.
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  const out = JSON.parse(result.stdout);
  const job = await record(out.job);
  expect(out).toEqual({ queued: false, job: job.id, item: job.item, host: 'local', pane: job.pane });
  return job;
}

beforeEach(async () => {
  box = await sandbox();
  lock = await holdServiceLock(box.state);
  await writeSnapshot(box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: 0 }));
  herdr = await startFakeHerdr({ dir: join(box.root, 'herdr'), env: { HOME: box.home } });
  active = (await ok('workspace.create', { cwd: box.home })).workspace.workspace_id;
  const created = await ok('workspace.create', { cwd: box.home });
  caller = { workspace: created.workspace.workspace_id, pane: created.root_pane.pane_id };
  env = {
    ...box.env,
    HERDR_SOCKET_PATH: herdr.socketPath,
    HERDR_ENV: '1',
    HERDR_PANE_ID: caller.pane,
    PATH: herdr.env.PATH,
  };
});

afterEach(async () => {
  await herdr.stop();
  await lock.release();
  await box.cleanup();
});

describe('run --wait in Herdr', () => {
  it("prints the job's output and exits with its status", async () => {
    const result = await runCli(['run', '--wait', '--', 'sh', '-c', 'echo hi; exit 3'], env, {
      cwd: box.root,
    });
    expect(result.stdout).toBe('hi\n');
    expect(result.code).toBe(3);
  });
});

describe('where the job tab opens', () => {
  it("outside any repository: a new tab in the caller's workspace, recorded on the job and its item", async () => {
    const dir = join(box.root, 'scratch');
    await mkdir(dir);
    const job = await started(dir);
    expect(job).toMatchObject({ workspace: caller.workspace, owner: caller.pane, host: 'local' });
    expect(job.pane).toMatch(/\S/);
    expect(job.terminal_id).toMatch(/\S/);
    const pane = (await ok('pane.get', { pane_id: job.pane })).pane;
    expect(pane).toMatchObject({
      workspace_id: caller.workspace,
      tab_id: job.tab,
      terminal_id: job.terminal_id,
    });
    const items = ItemsSchema.parse(JSON.parse(await readFile(join(box.state, 'items.json'), 'utf8'))).items;
    expect(items).toEqual([
      expect.objectContaining({
        id: job.item,
        kind: 'job',
        job: job.id,
        pane: job.pane,
        terminal_id: job.terminal_id,
        owner: caller.pane,
        closed_ms: null,
      }),
    ]);
  });

  it('outside any repository without a caller pane: a new tab in the active workspace', async () => {
    const dir = join(box.root, 'scratch');
    await mkdir(dir);
    const { HERDR_PANE_ID: _caller, ...withoutCaller } = env;
    env = withoutCaller;
    const job = await started(dir);
    expect(job).toMatchObject({ workspace: active, owner: null });
  });

  it("in a worktree: its own workspace, else the main checkout's; never the caller's", async () => {
    const main = await repository('app');
    const shown = join(box.home, 'wt', 'shown');
    const hidden = join(box.home, 'wt', 'hidden');
    git(main, 'worktree', 'add', '-q', '-b', 'shown', shown);
    git(main, 'worktree', 'add', '-q', '-b', 'hidden', hidden);
    await mkdir(join(shown, 'sub'));
    // Opens the worktree's workspace and, as its anchor, a workspace for the main checkout.
    const opened = await ok('worktree.open', { cwd: main, path: await realpath(shown) });
    const shownWorkspace = opened.workspace.workspace_id;
    const workspaces = (await ok('workspace.list')).workspaces as Array<{
      workspace_id: string;
      worktree?: { checkout_path: string };
    }>;
    const mainWorkspace = workspaces.find((w) => w.worktree?.checkout_path === main)?.workspace_id;
    expect(mainWorkspace).toBeDefined();

    expect((await started(join(shown, 'sub'))).workspace).toBe(shownWorkspace);
    expect((await started(hidden)).workspace).toBe(mainWorkspace);
    expect((await started(main)).workspace).toBe(mainWorkspace);
  });

  it('in a repository no workspace shows: a new workspace for the repository, which later jobs reuse', async () => {
    const main = await repository('lonely');
    const before = (await ok('workspace.list')).workspaces.length;
    const job = await started(main);
    const workspaces = (await ok('workspace.list')).workspaces as Array<{
      workspace_id: string;
      label: string;
      worktree?: { checkout_path: string };
    }>;
    expect(workspaces).toHaveLength(before + 1);
    const opened = workspaces.find((w) => w.workspace_id === job.workspace);
    expect(opened?.label).toBe('lonely');
    // Herdr links it to the repository, so it shows the main checkout from now on.
    expect(opened?.worktree?.checkout_path).toBe(main);
    expect([caller.workspace, active]).not.toContain(job.workspace);
    const again = await started(main);
    expect(again.workspace).toBe(job.workspace);
    expect((await ok('workspace.list')).workspaces).toHaveLength(before + 1);
  });
});

describe('a launch Herdr refuses', () => {
  it('ends the record launch failed, closes the item and says so in one line naming the host', async () => {
    const dir = join(box.root, 'scratch');
    await mkdir(dir);
    await ok('_fake.fail_next', { method: 'tab.create', code: 'internal_error', message: 'no tabs today' });
    const result = await runCli(['run', '--cwd', dir, '--', 'sleep', '1'], env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^dogsled: run: cannot launch job j_[a-z2-7]{12} on local: .*no tabs today/,
    );
    const id = /job (j_[a-z2-7]{12})/.exec(result.stderr)?.[1] ?? '';
    const job = await record(id);
    expect(job.reason).toMatch(/^launch failed: .*no tabs today/);
    expect(job.ended_ms).not.toBeNull();
    expect(job.started_ms).toBeNull();
    expect(job.pane).toBeNull();
    const items = ItemsSchema.parse(JSON.parse(await readFile(join(box.state, 'items.json'), 'utf8'))).items;
    expect(items).toEqual([
      expect.objectContaining({ job: id, close_reason: 'launch failed', closed_ms: job.ended_ms }),
    ]);
  });

  it('closes the tab it opened when Herdr refuses to type the line, leaving no empty shell', async () => {
    const dir = join(box.root, 'scratch2');
    await mkdir(dir);
    const tabs = async () => ((await ok('tab.list')).tabs as unknown[]).length;
    const before = await tabs();
    await ok('_fake.fail_next', { method: 'pane.send_input', code: 'internal_error', message: 'no typing' });
    const result = await runCli(['run', '--cwd', dir, '--', 'sleep', '1'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dogsled: run: cannot launch job j_[a-z2-7]{12} on local: .*no typing/);
    expect(await tabs()).toBe(before);
  });
});
