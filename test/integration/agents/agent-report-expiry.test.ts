// The completion worker expires agent reports (agent-reports/) with their items: a report goes when
// the item naming its terminal was closed more than 24 hours ago (on a fixed clock) and is dropped,
// never while the item is open, closed recently or holds a TO LAND row, and never a report no item
// names. A report path that is a directory is reported and kept; a FIFO there is removed unread.

import { spawnSync } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ITEM_RETENTION_MS } from '../../../service/core/agents/item-closing.js';
import type { Item } from '../../../service/core/agents/item-types.js';
import { observeBranches } from '../../../service/daemon/agents/branch-watch.js';
import { CompletionWorker } from '../../../service/daemon/queue/completion-worker.js';
import type { WorkerIO } from '../../../service/daemon/worker-io.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import { agentReportsDir, writeAgentReport } from '../../../service/state/records/agent-reports.js';
import { readItems, updateItems } from '../../../service/state/records/queue-items.js';
import { freshRepo, gitTestEnv, type Repo, removeScenarios } from '../../helpers/git-scenarios.js';
import { itemFixture } from '../../helpers/job-fixtures.js';

// A fixed clock far from now: nothing here depends on when the test runs.
const NOW = 4_000_000_000_000;
const HOUR = 3_600_000;
let repo: Repo;
let io: WorkerIO;
let warnings: string[];

beforeEach(async () => {
  repo = await freshRepo();
  const state = join(repo.root, 'state');
  await mkdir(state, { recursive: true, mode: 0o700 });
  warnings = [];
  io = {
    paths: statePaths(state),
    now: () => NOW,
    warn: (line) => warnings.push(line),
    env: gitTestEnv(),
    home: repo.root,
    config: structuredClone(DEFAULT_CONFIG),
    pid: process.pid,
    started_ms: NOW,
  };
});
afterAll(removeScenarios);

/** An agent item on `terminal`, open (closedAgo null) or closed that long before NOW. */
function agent(id: string, terminal: string | null, closedAgo: number | null, branch?: string): Item {
  return itemFixture({
    id,
    kind: 'agent',
    job: null,
    command: undefined,
    name: id,
    harness: 'claude',
    terminal_id: terminal,
    created_ms: NOW - (closedAgo ?? 0) - HOUR,
    closed_ms: closedAgo === null ? null : NOW - closedAgo,
    close_reason: closedAgo === null ? null : 'done',
    ...(branch ? { branch, repository: repo.main } : {}),
  });
}

async function seed(items: Item[], reports: string[]): Promise<void> {
  await updateItems(io, (current) => ({ result: undefined, next: { ...current, items } }));
  for (const terminal of reports) {
    await writeAgentReport(io.paths.dir, {
      version: 1,
      terminal_id: terminal,
      state: 'idle',
      at_ms: NOW - 3 * ITEM_RETENTION_MS,
      harness: 'claude',
      session_id: null,
      transcript_path: null,
    });
  }
}

const reportFiles = async () => (await readdir(agentReportsDir(io.paths.dir))).sort();
const itemIds = async () => (await readItems(io)).items.map((item) => item.id).sort();

describe('agent reports expire with their items', () => {
  it('removes the reports of items dropped after 24 hours, and only those', async () => {
    await repo.branch('feat/land', [{ 'land.txt': 'work\n' }]);
    await seed(
      [
        agent('i_open', '%1@100', null),
        agent('i_recent', '%2@100', 23 * HOUR),
        agent('i_old', '%3@100', ITEM_RETENTION_MS + 1),
        agent('i_land', '%4@100', 3 * ITEM_RETENTION_MS, 'feat/land'),
        // Two items on one terminal: the one that stays keeps the report.
        agent('i_shared_old', '%5@100', 2 * ITEM_RETENTION_MS),
        agent('i_shared_open', '%5@100', null),
        agent('i_huge', '%6@100', NOW),
        agent('i_herdr', 'w1-term-7', 2 * ITEM_RETENTION_MS),
        agent('i_none', null, 2 * ITEM_RETENTION_MS),
      ],
      ['%1@100', '%2@100', '%3@100', '%4@100', '%5@100', '%6@100', '%9@100'],
    );
    // The TO LAND row's hold comes from the branch observations, as in the service.
    await observeBranches(io, io.warn);

    await new CompletionWorker(io).pass();

    expect(await itemIds()).toEqual(['i_land', 'i_open', 'i_recent', 'i_shared_open']);
    expect(await reportFiles()).toEqual([
      'p1@100.json',
      'p2@100.json',
      'p4@100.json',
      'p5@100.json',
      // No item names it: nothing says it is stale, so it stays.
      'p9@100.json',
    ]);
    expect(warnings).toEqual([]);
  });

  it('keeps a directory in a report path with one warning, removes a FIFO, and still drops the items', async () => {
    await seed(
      [agent('i_dir', '%1@200', 2 * ITEM_RETENTION_MS), agent('i_fifo', '%2@200', 2 * ITEM_RETENTION_MS)],
      [],
    );
    await mkdir(join(agentReportsDir(io.paths.dir), 'p1@200.json', 'inside'), { recursive: true });
    expect(spawnSync('mkfifo', [join(agentReportsDir(io.paths.dir), 'p2@200.json')]).status).toBe(0);

    await new CompletionWorker(io).pass();

    expect(await itemIds()).toEqual([]);
    expect(await reportFiles()).toEqual(['p1@200.json']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^dogsled serve: completion: cannot remove the agent report .*p1@200\.json: is not a file$/,
    );
  });
});
