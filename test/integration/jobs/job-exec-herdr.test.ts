// `dogsled exec` in a fake Herdr pane (a real shell on a real PTY): the pane is reported working,
// then idle or blocked with the `dogsled` end token, and the job's tab closes after the final record;
// closing the pane while the job runs loses neither output nor exit code.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellLine } from '../../../service/core/common/shell-quote.js';
import type { JobRecord } from '../../../service/core/jobs/job-types.js';
import { type StatePaths, statePaths } from '../../../service/state/paths.js';
import { jobLogPath, readJobRecord, writeJobRecord } from '../../../service/state/records/job-records.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { CLI, runCli, type Sandbox, sandbox } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';

let box: Sandbox;
let paths: StatePaths;
let herdr: FakeHerdr;
let workspace: string;
let serial = 0;

async function ok(method: string, params: Record<string, unknown> = {}) {
  const reply = await herdr.call(method, params);
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

beforeAll(async () => {
  box = await sandbox();
  paths = statePaths(box.state);
  // Every pane gets DOGSLED_STATE, as `run` gives the job pane.
  herdr = await startFakeHerdr({
    dir: join(box.root, 'herdr'),
    env: { HOME: box.home, DOGSLED_STATE: box.state },
  });
  workspace = (await ok('workspace.create', { cwd: box.root })).workspace.workspace_id;
});

afterAll(async () => {
  await herdr?.stop();
  await box?.cleanup();
});

async function newJob(command: string[], extra: Partial<JobRecord> = {}): Promise<JobRecord> {
  const record: JobRecord = {
    version: 1,
    id: `j_herdr${++serial}`,
    command,
    cwd: box.root,
    host: 'local',
    owner: null,
    pane: null,
    created_ms: Date.now(),
    started_ms: null,
    ended_ms: null,
    exit_code: null,
    signal: null,
    reason: null,
    ...extra,
  };
  await writeJobRecord(paths, record);
  return record;
}

/** A new tab for the job, as `run` opens one: its id and its pane's. */
async function jobTab(): Promise<{ tab: string; pane: string }> {
  const created = await ok('tab.create', { workspace_id: workspace, cwd: box.root });
  return { tab: created.tab.tab_id, pane: created.root_pane.pane_id };
}

/** Types the exec line into the pane, as the launcher does. */
async function runExec(pane: string, job: JobRecord): Promise<void> {
  const line = shellLine([process.execPath, CLI, 'exec', job.id, '--', ...job.command]);
  await ok('pane.send_input', { pane_id: pane, text: line, keys: ['Enter'] });
}

function ended(job: JobRecord): Promise<JobRecord> {
  return waitFor(
    `job ${job.id} ended`,
    async () => {
      const record = await readJobRecord(paths, job.id);
      return record.ended_ms === null ? undefined : record;
    },
    { timeoutMs: 15_000 },
  );
}

async function tabGone(tab: string): Promise<void> {
  await waitFor(
    `tab ${tab} closed`,
    async () => {
      const tabs: Array<{ tab_id: string }> = (await ok('tab.list', { workspace_id: workspace })).tabs;
      return tabs.some((t) => t.tab_id === tab) ? undefined : true;
    },
    { timeoutMs: 10_000 },
  );
}

/** The params of every call of `method` about `pane`, in order. */
async function callsFor(method: string, pane: string): Promise<Array<Record<string, unknown>>> {
  const calls: Array<{ params: Record<string, unknown> }> = (await ok('_fake.calls.list', { method })).calls;
  return calls.map((call) => call.params).filter((params) => params.pane_id === pane);
}

describe.concurrent('exec in a Herdr pane', () => {
  it('reports working then idle with the exit token, and closes its tab (found from its pane)', async () => {
    const { tab, pane } = await jobTab();
    const job = await newJob(['sh', '-c', 'echo hello from the job']);
    await runExec(pane, job);
    expect(await ended(job)).toMatchObject({ exit_code: 0, reason: null });
    await tabGone(tab);
    const reports = await callsFor('pane.report_agent', pane);
    expect(reports.map((r) => r.state)).toEqual(['working', 'idle']);
    expect(reports[0]).toMatchObject({ source: 'dogsled:job', agent: 'dogsled-job' });
    const tokens = await callsFor('pane.report_metadata', pane);
    expect(tokens).toEqual([
      expect.objectContaining({ source: 'dogsled:job', tokens: { dogsled: 'exit 0' } }),
    ]);
    expect(await readFile(jobLogPath(paths, job.id), 'utf8')).toBe('hello from the job\n');
  });

  it('reports a failed job blocked with its exit token and closes the tab the record names', async () => {
    const { tab, pane } = await jobTab();
    const job = await newJob(['sh', '-c', 'echo failing; exit 3'], { pane, tab });
    await runExec(pane, job);
    expect(await ended(job)).toMatchObject({ exit_code: 3, reason: null, pane, tab });
    await tabGone(tab);
    expect((await callsFor('pane.report_agent', pane)).map((r) => r.state)).toEqual(['working', 'blocked']);
    expect((await callsFor('pane.report_metadata', pane)).map((r) => r.tokens)).toEqual([
      { dogsled: 'exit 3' },
    ]);
    const closes: Array<{ params: { tab_id: string } }> = (
      await ok('_fake.calls.list', { method: 'tab.close' })
    ).calls;
    expect(closes.map((c) => c.params.tab_id)).toContain(tab);
  });

  it('finishes the job when its pane closes mid-run: whole log, exit code kept', async () => {
    const { tab, pane } = await jobTab();
    // The job goes on only once the pane is closed: under load, a fixed sleep could end it (and exec
    // close the pane itself) before the test saw the first line there. It gives up after 60 s.
    const release = join(box.root, 'release-mid-run');
    const script = `echo first; i=0; while [ ! -e ${release} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; echo second >&2; exit 5`;
    const job = await newJob(['sh', '-c', script], { pane, tab });
    await runExec(pane, job);
    await waitFor(
      'first line logged',
      async () =>
        (await readFile(jobLogPath(paths, job.id), 'utf8').catch(() => '')) === 'first\n' ? true : undefined,
      { timeoutMs: 10_000 },
    );
    // The pane shows the output too (exec copies the log to it) until it closes.
    let shown = '';
    await waitFor(
      'first line shown in the pane',
      async () => {
        shown = (await ok('_fake.pane.output', { pane_id: pane })).text;
        // The line is typed as soon as the tab exists, so the shell's prompt can come after the echo
        // of the typed line and before the job's output: `# first`.
        return /(?:^|\s)first\r?$/m.test(shown) ? true : undefined;
      },
      { timeoutMs: 10_000 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the pane showed ${JSON.stringify(shown)}`);
    });
    await ok('pane.close', { pane_id: pane });
    await writeFile(release, '');
    const final = await ended(job);
    expect(final).toMatchObject({ exit_code: 5, signal: null, reason: null });
    expect(await readFile(jobLogPath(paths, job.id), 'utf8')).toBe('first\nsecond\n');
  });

  it('tells Herdr trouble in one stderr line and keeps the job status', async () => {
    const job = await newJob(['sh', '-c', 'exit 3']);
    const env = {
      ...box.env,
      PATH: herdr.env.PATH,
      HERDR_ENV: '1',
      HERDR_SOCKET_PATH: herdr.socketPath,
      HERDR_PANE_ID: `${workspace}:p99`,
    };
    const result = await runCli(['exec', job.id, '--', ...job.command], env);
    expect(result.code).toBe(3);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^dogsled: exec: job ${job.id}: herdr pane ${workspace}:p99: report working: .*; close the tab: .*; close the pane: .*not found`,
      ),
    );
    expect(await readJobRecord(paths, job.id)).toMatchObject({ exit_code: 3, reason: null });
  });
});

// Alone: the injected failure hits the next tab.close of any test.
describe('a tab that cannot be closed', () => {
  it('falls back to closing the pane when the tab close fails', async () => {
    const { tab, pane } = await jobTab();
    const job = await newJob(['true'], { pane, tab });
    await ok('_fake.fail_next', {
      method: 'tab.close',
      code: 'confirmation_required',
      message: 'would close a worktree',
    });
    await runExec(pane, job);
    expect(await ended(job)).toMatchObject({ exit_code: 0 });
    await waitFor(
      `pane ${pane} closed`,
      async () => {
        const panes: Array<{ pane_id: string }> = (await ok('pane.list', {})).panes;
        return panes.some((p) => p.pane_id === pane) ? undefined : true;
      },
      { timeoutMs: 10_000 },
    );
    await tabGone(tab);
    const closes: Array<{ params: { pane_id: string } }> = (
      await ok('_fake.calls.list', { method: 'pane.close' })
    ).calls;
    expect(closes.map((c) => c.params.pane_id)).toContain(pane);
  });
});
