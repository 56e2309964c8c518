// The service's completion worker end to end: a real `serve` closes job items whose jobs ended,
// finalizes jobs whose wrapper died, closes items whose pane left the (fake) Herdr, never judges
// panes it cannot see, and drops items closed more than a day ago.

import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureStateDir, statePaths } from '../../../service/state/paths.js';
import { readJobRecord } from '../../../service/state/records/job-records.js';
import { type FakeHerdr, startFakeHerdr } from '../../fakes/herdr/harness.js';
import { type Sandbox, sandbox, type startCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import {
  appendItems,
  itemFixture,
  items,
  jobFixture,
  killAll,
  startServe,
  writeJobs,
} from './job-queue-fixtures.js';

const DAY = 24 * 3_600_000;
let box: Sandbox;
let herdr: FakeHerdr | undefined;
const running: Array<ReturnType<typeof startCli>> = [];

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  await killAll(running);
  await herdr?.stop();
  herdr = undefined;
  await box.cleanup();
});

/** A pid that surely belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

async function item(id: string) {
  return (await items(box)).find((i) => i.id === id);
}

describe('jobs that ended without their wrapper', () => {
  it("end their reservations and remove their saved environments; a running job's are kept", async () => {
    const now = Date.now();
    const reservation = (id: string) => ({ id, created_ms: now, expires_ms: now + 600_000, owner: null });
    await ensureStateDir(box.state);
    await writeFile(
      join(box.state, 'placements.json'),
      `${JSON.stringify({ version: 1, reservations: ['r_lost', 'r_orphan', 'r_running', 'r_place'].map(reservation) })}\n`,
    );
    await writeJobs(box, [
      jobFixture({
        id: 'j_lost',
        started_ms: now - 5_000,
        wrapper_pid: await deadPid(),
        wrapper_start: 1,
        reservation: 'r_lost',
      }),
      jobFixture({ id: 'j_orphan', created_ms: now - 11 * 60_000, reservation: 'r_orphan' }),
      jobFixture({
        id: 'j_running',
        started_ms: now - 5_000,
        wrapper_pid: process.pid,
        reservation: 'r_running',
      }),
    ]);
    for (const id of ['j_orphan', 'j_running']) await writeFile(join(box.state, 'jobs', `${id}.env`), '{}');
    startServe(box.env, running);
    const left = await waitFor(
      'two reservations ended',
      async () => {
        const ids = JSON.parse(await readFile(join(box.state, 'placements.json'), 'utf8')).reservations.map(
          (r: { id: string }) => r.id,
        );
        return ids.length === 2 ? ids : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(left).toEqual(['r_running', 'r_place']);
    const files = await readdir(join(box.state, 'jobs'));
    expect(files).not.toContain('j_orphan.env');
    expect(files).toContain('j_running.env');
  });
});

describe('closing items without Herdr', () => {
  it('closes job items by their job end, finalizes a lost wrapper and a job never started, expires day-old jobs, publishes the rest in host.json', async () => {
    const now = Date.now();
    await writeJobs(box, [
      jobFixture({ id: 'j_exit3', started_ms: now - 5_000, ended_ms: now - 1_000, exit_code: 3 }),
      jobFixture({
        id: 'j_timeout',
        started_ms: now - 5_000,
        ended_ms: now - 1_000,
        signal: 'SIGTERM',
        reason: 'timeout',
      }),
      jobFixture({ id: 'j_lost', started_ms: now - 5_000, wrapper_pid: await deadPid(), wrapper_start: 1 }),
      jobFixture({ id: 'j_created' }),
      // Written 11 minutes ago and never started by exec: its launcher died.
      jobFixture({ id: 'j_orphan', created_ms: now - 11 * 60_000 }),
      jobFixture({ id: 'j_running', started_ms: now - 5_000, wrapper_pid: process.pid }),
      // Ended more than a day ago: it expires with its log.
      jobFixture({
        id: 'j_expired',
        created_ms: now - DAY - 9_000,
        started_ms: now - DAY - 8_000,
        ended_ms: now - DAY - 5_000,
        exit_code: 0,
      }),
    ]);
    await writeFile(join(box.state, 'jobs', 'j_expired.log'), 'old output\n');
    await appendItems(box, [
      itemFixture({ id: 'i_exit3', job: 'j_exit3' }),
      itemFixture({ id: 'i_timeout', job: 'j_timeout' }),
      itemFixture({ id: 'i_lost', job: 'j_lost' }),
      // Headless items have no pane: only their job's end closes them, however long it runs.
      itemFixture({ id: 'i_created', job: 'j_created' }),
      itemFixture({ id: 'i_running', job: 'j_running' }),
      itemFixture({ id: 'i_orphan', job: 'j_orphan' }),
      // With a pane but no Herdr to ask: never judged gone.
      itemFixture({ id: 'i_pane', job: 'j_running', pane: 'w1:p3', terminal_id: 'term-3' }),
      itemFixture({ id: 'i_norecord', job: 'j_pruned' }),
      itemFixture({ id: 'i_old', closed_ms: now - DAY - 60_000, close_reason: 'pane gone' }),
      itemFixture({ id: 'i_recent', closed_ms: now - DAY + 600_000, close_reason: 'pane gone' }),
    ]);
    startServe(box.env, running);
    await waitFor('the lost job closed', async () => (await item('i_lost'))?.closed_ms ?? undefined, {
      timeoutMs: 15_000,
    });
    const byId = new Map((await items(box)).map((i) => [i.id, i]));
    expect(byId.get('i_exit3')?.close_reason).toBe('job ended (exit 3)');
    expect(byId.get('i_timeout')?.close_reason).toBe('job ended (timeout)');
    expect(byId.get('i_lost')?.close_reason).toBe('job ended (wrapper lost)');
    expect(byId.get('i_norecord')?.close_reason).toBe('job record gone');
    expect(byId.get('i_orphan')?.close_reason).toBe('job ended (never started)');
    expect(await readJobRecord(statePaths(box.state), 'j_orphan')).toMatchObject({
      reason: 'never started',
      started_ms: null,
    });
    for (const open of ['i_created', 'i_running', 'i_pane']) expect(byId.get(open)?.closed_ms).toBeNull();
    expect(byId.has('i_old')).toBe(false);
    expect(byId.get('i_recent')?.close_reason).toBe('pane gone');
    expect(await readJobRecord(statePaths(box.state), 'j_lost')).toMatchObject({
      reason: 'wrapper lost',
      exit_code: null,
    });
    expect((await readJobRecord(statePaths(box.state), 'j_running')).ended_ms).toBeNull();
    const left = await readdir(join(box.state, 'jobs'));
    expect(left.filter((name) => name.startsWith('j_expired'))).toEqual([]);
    // host.json publishes the records (ended ones too), for `ps --all` on other hosts.
    const published = await waitFor(
      'jobs in host.json',
      async () => {
        const snapshot = JSON.parse(await readFile(join(box.state, 'host.json'), 'utf8'));
        const ids = (snapshot.jobs ?? []).map((job: { id: string }) => job.id);
        return ids.includes('j_orphan') && !ids.includes('j_expired') ? snapshot.jobs : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(published.find((job: { id: string }) => job.id === 'j_exit3')).toMatchObject({
      exit_code: 3,
      host: 'local',
    });

    // A job that ends later closes its item on a later pass.
    await writeJobs(box, [
      jobFixture({ id: 'j_created', started_ms: Date.now(), ended_ms: Date.now(), exit_code: 0 }),
    ]);
    const closed = await waitFor('closed', async () => (await item('i_created'))?.closed_ms ?? undefined, {
      timeoutMs: 10_000,
    });
    expect(closed).toBeGreaterThan(now);
    expect((await item('i_created'))?.close_reason).toBe('job ended (exit 0)');
  });
});

describe('closing items whose pane is gone from Herdr', () => {
  it('closes an item whose pane and terminal Herdr no longer shows, keeps one it shows, and judges none without Herdr', async () => {
    herdr = await startFakeHerdr({ dir: box.root, env: { HOME: box.home } });
    const created = (await herdr.call('workspace.create', { cwd: box.root })).result;
    const live = { pane: created.root_pane.pane_id, terminal_id: created.root_pane.terminal_id };
    const second = (
      await herdr.call('tab.create', { workspace_id: created.workspace.workspace_id, cwd: box.root })
    ).result.root_pane;
    await appendItems(box, [
      itemFixture({ id: 'i_live', kind: 'agent', ...live }),
      itemFixture({ id: 'i_closing', kind: 'agent', pane: second.pane_id, terminal_id: second.terminal_id }),
      itemFixture({ id: 'i_gone', kind: 'agent', pane: 'w9:p9', terminal_id: 'no-such-terminal' }),
      // An item that knows only its pane is judged by the pane.
      itemFixture({ id: 'i_pane_only', kind: 'agent', pane: live.pane, terminal_id: null }),
    ]);
    startServe({ ...box.env, HERDR_SOCKET_PATH: herdr.socketPath, HERDR_ENV: '1' }, running);
    await waitFor('the gone pane closed', async () => (await item('i_gone'))?.closed_ms ?? undefined, {
      timeoutMs: 15_000,
    });
    expect((await item('i_gone'))?.close_reason).toBe('pane gone');
    for (const open of ['i_live', 'i_closing', 'i_pane_only'])
      expect((await item(open))?.closed_ms).toBeNull();

    await herdr.call('pane.close', { pane_id: second.pane_id });
    await waitFor('the closed pane', async () => (await item('i_closing'))?.closed_ms ?? undefined, {
      timeoutMs: 15_000,
    });
    expect((await item('i_closing'))?.close_reason).toBe('pane gone');
    expect((await item('i_live'))?.closed_ms).toBeNull();

    // Herdr gone: nothing can be judged, so nothing closes, however many passes run.
    await herdr.stop();
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await item('i_live'))?.closed_ms).toBeNull();
    expect((await item('i_pane_only'))?.closed_ms).toBeNull();
  });
});
