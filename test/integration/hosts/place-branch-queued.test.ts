// `place --branch` on a full host without --wait: the ticket remembers the branch, and when the
// service admits it, the reservation gets its worktree (made, locked, opened in Herdr) and the
// owner's inbox admission record carries the worktree's `path` and `pane_id`. A branch the service
// cannot make fails the ticket with the reason, and the owner hears that instead.

import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { InboxWorker } from '../../../service/daemon/inbox-worker.js';
import { AdmissionWorker } from '../../../service/daemon/queue/admission-worker.js';
import type { WorkerIO } from '../../../service/daemon/worker-io.js';
import { readInbox } from '../../../service/inbox/inbox-files.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import { runCli } from '../../helpers/cli.js';
import { freshRepo, type Repo, removeScenarios } from '../../helpers/git-scenarios.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { agentSuite, ok, paneIds, tickets } from '../agents/agent-fixtures.js';
import { worktreeList } from '../cleanup/worktree-fixtures.js';

const suite = agentSuite();
let repo: Repo;

beforeEach(async () => {
  repo = await freshRepo();
});
afterAll(removeScenarios);

function workerIO(): WorkerIO {
  return {
    paths: statePaths(suite.box.state),
    now: Date.now,
    warn: (line) => {
      throw new Error(`unexpected warning: ${line}`);
    },
    env: suite.env,
    home: suite.box.home,
    config: structuredClone(DEFAULT_CONFIG),
    pid: process.pid,
    started_ms: Date.now(),
  };
}

/** Queues `place --branch` on a full host, then gives the host room again. */
async function queuedPlace(args: string[]): Promise<string> {
  await writeSnapshot(suite.box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: 8 }));
  const result = await runCli(['place', ...args, '--json'], suite.env, { cwd: repo.main });
  expect({ code: result.code, stdout: result.stdout }).toMatchObject({ code: 1 });
  const [ticket] = await tickets(suite);
  expect(ticket).toMatchObject({ kind: 'place', waiting: false, state: 'pending' });
  await writeSnapshot(suite.box.state, snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: 0 }));
  return ticket?.id ?? '';
}

async function ownerRecords() {
  const pane = (await ok(suite.herdr, 'pane.get', { pane_id: suite.caller.pane })).pane;
  return (await readInbox(workerIO(), pane.terminal_id))?.records ?? [];
}

describe('a queued place --branch nobody waits for', () => {
  it('gets its worktree at admission, and the admission record carries path and pane_id', async () => {
    const id = await queuedPlace(['--branch', 'feat/later']);
    expect((await tickets(suite))[0]?.place).toEqual({ branch: 'feat/later', base: null, repo: repo.main });
    const panesBefore = await paneIds(suite.herdr);

    const results = await new AdmissionWorker(workerIO()).pass();
    expect(results.map((r) => r.kind)).toEqual(['admitted']);
    const path = `${repo.main}/.worktrees/feat-later`;
    expect(await worktreeList(repo)).toContainEqual({ path, branch: 'feat/later', locked: 'agent:worktree' });
    const [ticket] = await tickets(suite);
    expect(ticket).toMatchObject({ id, state: 'admitted', worktree: { path, branch: 'feat/later' } });
    const pane = ticket?.worktree?.pane_id as string;
    expect(panesBefore).not.toContain(pane);
    expect(await paneIds(suite.herdr)).toContain(pane);

    await new InboxWorker(workerIO()).pass();
    const records = await ownerRecords();
    expect(records).toEqual([expect.objectContaining({ kind: 'admission', path, pane_id: pane })]);
    expect(records[0]?.text).toContain(`Worktree ${path} (branch feat/later), pane ${pane}.`);
  });

  it('fails with the reason when the branch cannot be made, and the owner hears so', async () => {
    const id = await queuedPlace(['--branch', 'feat/bad-base', '--base', 'no-such-ref']);
    await new AdmissionWorker(workerIO()).pass();
    const [ticket] = await tickets(suite);
    expect(ticket).toMatchObject({ id, state: 'failed' });
    expect(ticket?.error).toMatch(/no-such-ref/);
    expect(ticket?.error).toMatch(/reservation \S+ stays until its TTL$/);
    expect((await worktreeList(repo)).map((w) => w.branch)).not.toContain('feat/bad-base');
    await new InboxWorker(workerIO()).pass();
    const records = await ownerRecords();
    expect(records).toEqual([expect.objectContaining({ kind: 'admission' })]);
    expect(records[0]).not.toHaveProperty('path');
    expect(records[0]?.text).toMatch(/failed: .*no-such-ref/);
  });
});
