// TO LAND rows of finished children against real repositories, through the service's own branch
// watch and completion worker and the board reader: a kept branch shows while it holds commits the
// default branch lacks, also once it is pushed (pushed is not landed), also days after its child
// finished (its item outlives the day's retention), and leaves when it is squash-merged or deleted
// (spec: "Integration or branch deletion removes the row"), a pushed one too. A child open on a peer
// has its row once that peer's cached snapshot shows its pane idle, by the branch the peer forwarded.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { readBoard } from '../../../service/board/read-board.js';
import { ITEM_RETENTION_MS } from '../../../service/core/agents/item-closing.js';
import { observeBranches } from '../../../service/daemon/agents/branch-watch.js';
import { CompletionWorker } from '../../../service/daemon/queue/completion-worker.js';
import type { WorkerIO } from '../../../service/daemon/worker-io.js';
import { gateCheck } from '../../../service/inbox/gate.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import { readItems, updateItems } from '../../../service/state/records/queue-items.js';
import { freshRepo, gitTestEnv, type Repo, removeScenarios } from '../../helpers/git-scenarios.js';
import { itemFixture } from '../../helpers/job-fixtures.js';
import { agentPaneFixture, snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

const OWNER = 'w1:p1';
let repo: Repo;
let io: WorkerIO;
let clock: number;

beforeEach(async () => {
  repo = await freshRepo();
  const state = join(repo.root, 'state');
  await mkdir(state, { recursive: true, mode: 0o700 });
  clock = Date.now();
  io = {
    paths: statePaths(state),
    now: () => clock,
    warn: (line) => {
      throw new Error(`unexpected warning: ${line}`);
    },
    env: gitTestEnv(),
    home: repo.root,
    config: structuredClone(DEFAULT_CONFIG),
    pid: process.pid,
    started_ms: clock,
  };
});
afterAll(removeScenarios);

/** A child that finished `closedAgo` ms ago on `branch`, kept in items.json. */
async function finishedChild(branch: string, closedAgo: number): Promise<string> {
  const item = itemFixture({
    id: 'i_child',
    kind: 'agent',
    owner: OWNER,
    job: null,
    command: undefined,
    name: 'unit',
    harness: 'pi',
    branch,
    repository: repo.main,
    created_ms: clock - closedAgo - 60_000,
    closed_ms: clock - closedAgo,
    close_reason: 'done',
  });
  await updateItems(io, (items) => ({ result: undefined, next: { ...items, items: [item] } }));
  return item.id;
}

async function toLand(): Promise<string[]> {
  await observeBranches(io, io.warn);
  const board = await readBoard(io, OWNER);
  return (board.groups.find((group) => group.id === 'to_land')?.rows ?? []).map((row) => row.reason ?? '');
}

describe('TO LAND', () => {
  it('shows a pushed but unmerged branch until it is squash-merged into the default branch', async () => {
    await repo.branch('feat/pushed', [{ 'x.txt': 'one\n' }, { 'x.txt': 'two\n' }]);
    await finishedChild('feat/pushed', 60_000);
    expect(await toLand()).toEqual(['unit: branch feat/pushed +2 to land']);
    await repo.push('feat/pushed');
    expect(await toLand()).toEqual(['unit: branch feat/pushed +2 to land']);
    // Main moves on meanwhile: still two commits of the branch to land.
    await repo.commit({ 'other.txt': 'other\n' }, 'unrelated');
    await repo.push('main');
    expect(await toLand()).toEqual(['unit: branch feat/pushed +2 to land']);
    await repo.git(['merge', '-q', '--squash', 'feat/pushed']);
    await repo.commit({}, 'squash feat/pushed');
    await repo.push('main');
    expect(await toLand()).toEqual([]);
  });

  it('drops the row once the branch is deleted, a pushed one too (what `close` does to it)', async () => {
    await repo.branch('feat/gone', [{ 'g.txt': 'work\n' }]);
    await finishedChild('feat/gone', 60_000);
    await repo.push('feat/gone');
    expect(await toLand()).toEqual(['unit: branch feat/gone +1 to land']);
    await repo.git(['branch', '-D', 'feat/gone']);
    expect(await toLand()).toEqual([]);
  });

  it("keeps a finished child's branch on the board days after the child finished, until it is deleted", async () => {
    await repo.branch('feat/old', [{ 'y.txt': 'work\n' }]);
    const id = await finishedChild('feat/old', 3 * ITEM_RETENTION_MS);
    expect(await toLand()).toEqual(['unit: branch feat/old +1 to land']);
    await new CompletionWorker(io).pass();
    expect((await readItems(io)).items.map((item) => item.id)).toEqual([id]);
    expect(await toLand()).toEqual(['unit: branch feat/old +1 to land']);

    await repo.git(['branch', '-D', 'feat/old']);
    expect(await toLand()).toEqual([]);
    await new CompletionWorker(io).pass();
    expect((await readItems(io)).items).toEqual([]);
  });

  it('drops an old item once its branch is merged', async () => {
    await repo.branch('feat/merged', [{ 'z.txt': 'work\n' }]);
    await finishedChild('feat/merged', 2 * ITEM_RETENTION_MS);
    await repo.git(['merge', '-q', '--ff-only', 'feat/merged']);
    expect(await toLand()).toEqual([]);
    await new CompletionWorker(io).pass();
    expect((await readItems(io)).items).toEqual([]);
  });
});

describe('TO LAND of a child open on a peer', () => {
  /** The peer cache's entry of `big`: its last snapshot, with the child's pane in `state` there. */
  async function peerEntry(state: string): Promise<void> {
    const snapshot = snapshotFixture({ sample_ms: clock });
    const probe = { ...snapshot.probe, agent_panes: [agentPaneFixture('w1:p3', state, clock - 5_000)] };
    const entry = {
      version: 1,
      id: 'big',
      target: 'big',
      attempt_ms: clock,
      read_ms: clock,
      unreachable: null,
      failures: 0,
      retry_at_ms: null,
      reply: {
        now_ms: clock,
        host: {
          hostname: 'big',
          service: 'up',
          sample_ms: clock,
          probe,
          headroom: snapshot.headroom,
          reservations: [],
          errors: [],
        },
        jobs: [],
      },
    };
    await mkdir(io.paths.peers, { recursive: true });
    await writeFile(join(io.paths.peers, 'big.json'), JSON.stringify(entry));
  }

  it("shows its branch once the peer's snapshot shows its pane idle, never by a pane of the same id here", async () => {
    const item = itemFixture({
      id: 'i_far',
      kind: 'agent',
      host: 'big',
      owner: OWNER,
      job: null,
      command: undefined,
      name: 'far',
      harness: 'claude',
      branch: 'feat/far',
      pane: 'w1:p3',
      terminal_id: 'term_w1_p3',
      // What the peer forwarded of the branch there (its outbox), as the owner's service applied it.
      branch_seen: { ahead: 1, dirty: false, landed: false, observed_ms: clock - 1_000 },
    });
    await updateItems(io, (items) => ({ result: undefined, next: { ...items, items: [item] } }));
    // This host has an idle agent in a pane of the same id: another agent, which says nothing.
    const here = snapshotFixture({ sample_ms: clock });
    here.probe.agent_panes = [agentPaneFixture('w1:p3', 'idle', clock - 5_000)];
    await writeSnapshot(io.paths.dir, here);
    expect(await toLand()).toEqual([]);
    await peerEntry('working');
    expect(await toLand()).toEqual([]);
    expect(await gateCheck(io, OWNER)).toBeUndefined();
    await peerEntry('idle');
    expect(await toLand()).toEqual(['far: branch feat/far +1 to land']);
    // The stop gate reads the same rows: the owner is reminded of it, once.
    expect(await gateCheck(io, OWNER)).toContain('feat/far');
    expect(await gateCheck(io, OWNER)).toBeUndefined();
  });
});
