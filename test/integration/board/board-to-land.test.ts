// TO LAND rows of finished children against real repositories, through the service's own branch
// watch and completion worker and the board reader: a kept branch shows while it holds commits the
// default branch lacks, also once it is pushed (pushed is not landed), also days after its child
// finished (its item outlives the day's retention), and leaves when it is squash-merged or deleted
// (spec: "Integration or branch deletion removes the row"), a pushed one too.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { readBoard } from '../../../service/board/read-board.js';
import { ITEM_RETENTION_MS } from '../../../service/core/agents/item-closing.js';
import { observeBranches } from '../../../service/daemon/agents/branch-watch.js';
import { CompletionWorker } from '../../../service/daemon/queue/completion-worker.js';
import type { WorkerIO } from '../../../service/daemon/worker-io.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import { readItems, updateItems } from '../../../service/state/records/queue-items.js';
import { freshRepo, gitTestEnv, type Repo, removeScenarios } from '../../helpers/git-scenarios.js';
import { itemFixture } from '../../helpers/job-fixtures.js';

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
