// The page's read (service/actions/dash.ts) on real files: every owner's board, receipts from history
// and from items closed since its last pass, the day's spend beside a budget, this host's busy and
// memory from samples.jsonl and a peer's from the snapshots seen while the page runs; and what a
// state dir may hold instead: a FIFO or a directory where a file should be (a problem line, never a
// hang or a crash), a frozen process holding items.json's lock (reads take no lock), and a month of
// history (the page shows its newest rows, sized by them, not by the file).
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { renderSections, sectionMarkup } from '../../../dash/view/page-view.js';
import { DashMemory, readDashState } from '../../../service/actions/dash.js';
import type { LazyHostIO } from '../../../service/actions/verb-io.js';
import type { Item } from '../../../service/core/agents/item-types.js';
import { type HistoryEntry, historyEntry } from '../../../service/core/history/history-entry.js';
import { appendHistory } from '../../../service/history/history-file.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import { updateItems } from '../../../service/state/records/queue-items.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { HIDDEN, hostileReply } from '../../helpers/hostile-snapshot.js';
import { itemFixture } from '../../helpers/job-fixtures.js';
import { freshHost } from '../../helpers/run-fixtures.js';
import { buildStateWorker, type HeldWorker, startWorker } from '../../helpers/state-worker-build.js';
import { tempDir } from '../../helpers/tree.js';

let box: Sandbox;
let bundleDir: string;
let bundle: string;
const workers: HeldWorker[] = [];
const NOW = Date.now();

beforeAll(async () => {
  bundleDir = await tempDir('dogsled-dash-worker-');
  bundle = await buildStateWorker(bundleDir);
});
afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
});
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  for (const worker of workers.splice(0)) {
    worker.kill('SIGCONT');
    worker.kill('SIGKILL');
    await worker.exited;
  }
  await box.cleanup();
});

function io(budget = DEFAULT_CONFIG.budget): LazyHostIO {
  const base = {
    paths: statePaths(box.state),
    now: () => NOW,
    warn: () => undefined,
    env: {},
    home: box.home,
  };
  return {
    ...base,
    hostIO: async () => ({ ...base, config: { ...structuredClone(DEFAULT_CONFIG), budget } }),
  };
}

const receipt = (usd: number) => ({
  tokens: 18_666,
  usd,
  turns: 1,
  model: 'claude-sonnet-4-5',
  models: [],
  prices_as_of: '2025-11-24',
  wall_ms: 1000,
});

function child(id: string, owner: string, closedAgo: number | null, usd = 0.5): Item {
  return itemFixture({
    id,
    kind: 'agent',
    owner,
    name: id,
    harness: 'claude',
    created_ms: NOW - 120_000,
    closed_ms: closedAgo === null ? null : NOW - closedAgo,
    close_reason: closedAgo === null ? null : 'done',
    ...(closedAgo === null ? {} : { receipt: receipt(usd) }),
  });
}

async function seed(): Promise<void> {
  await freshHost(box.state, true);
  const state = { paths: statePaths(box.state), now: () => NOW, warn: () => undefined };
  const inHistory = child('i_history', 'w1:p1', 60_000);
  await appendHistory(state, [historyEntry({ ...inHistory, closed_ms: NOW - 60_000 }, undefined, 'Task.')]);
  await updateItems(state, (items) => ({
    result: undefined,
    next: {
      ...items,
      items: [
        inHistory,
        child('i_recent', 'w1:p2', 1000, 0.25),
        child('i_open', 'w1:p2', null),
        itemFixture({ id: 'i_job', owner: 'w1:p3', job: 'j_missing00000' }),
      ],
    },
  }));
  const samples = [0.2, 0.4].map((busy, i) =>
    JSON.stringify({ ts_ms: NOW - 60_000 * (2 - i), busy, memory: { total_bytes: 100, free_bytes: 25 } }),
  );
  await writeFile(join(box.state, 'samples.jsonl'), `${samples.join('\n')}\n`);
}

describe("the page's read", () => {
  it("gathers every owner's board, the receipts, the day's spend and this host's samples", async () => {
    await seed();
    const budget = { owner_usd_per_day: 0.5, host_usd_per_day: null, hosts: {} };
    const state = await readDashState(io(budget), new DashMemory(statePaths(box.state)));
    expect(state.problems).toEqual([]);
    expect(state.boards.map((board) => board.owner)).toEqual(['w1:p1', 'w1:p2', 'w1:p3']);
    expect(state.receipts?.map((r) => [r.id, r.receipt?.usd])).toEqual([
      ['i_recent', 0.25],
      ['i_history', 0.5],
    ]);
    expect(state.budget).toEqual([
      { kind: 'owner', name: 'w1:p1', spent_usd: 0.5, limit_usd: 0.5, spent_out: true },
      { kind: 'owner', name: 'w1:p2', spent_usd: 0.25, limit_usd: 0.5, spent_out: false },
      { kind: 'host', name: 'local', spent_usd: 0.75, limit_usd: null, spent_out: false },
    ]);
    const local = state.hosts[0];
    expect(local?.points.map((p) => [p.busy, p.memory_used])).toEqual([
      [0.2, 0.75],
      [0.4, 0.75],
    ]);
    expect(local?.points_from).toBe('samples');
  });

  it("keeps a peer's points from the snapshots the page sees, one per snapshot, its text escaped", async () => {
    await seed();
    await mkdir(join(box.state, 'peers'), { recursive: true });
    const peerAt = async (at: number) => {
      const entry = {
        version: 1,
        id: 'evil',
        target: 'evil',
        attempt_ms: at,
        read_ms: at,
        unreachable: null,
        failures: 0,
        retry_at_ms: null,
        reply: hostileReply(at),
      };
      await writeFile(join(box.state, 'peers', 'evil.json'), JSON.stringify(entry));
    };
    let now = NOW;
    const base = io();
    const withPeer: LazyHostIO = {
      ...base,
      now: () => now,
      hostIO: async () => ({
        ...(await base.hostIO()),
        now: () => now,
        config: {
          ...structuredClone(DEFAULT_CONFIG),
          hosts: [{ id: 'evil', label: 'evil', target: 'evil', enabled: true }],
        },
      }),
    };
    const memory = new DashMemory(statePaths(box.state));
    await peerAt(NOW - 1000);
    await readDashState(withPeer, memory);
    now = NOW + 100; // the same snapshot read again
    await readDashState(withPeer, memory);
    await peerAt(NOW + 4000);
    now = NOW + 5000;
    const state = await readDashState(withPeer, memory);
    const peer = state.hosts.find((h) => h.id === 'evil');
    expect(peer?.points_from).toBe('page');
    expect(peer?.points.map((p) => p.ts_ms)).toEqual([NOW - 1000, NOW + 4000]);
    const fleet = sectionMarkup(renderSections(state, '')).fleet;
    expect(fleet).toContain("A peer's samples stay on the peer");
    expect(fleet).not.toMatch(HIDDEN);
  });

  it('says what it could not read, and reads the rest: a FIFO history, a directory of items, of samples', async () => {
    await seed();
    await rm(join(box.state, 'history.jsonl'));
    execFileSync('mkfifo', [join(box.state, 'history.jsonl')]);
    await rm(join(box.state, 'items.json'));
    await mkdir(join(box.state, 'items.json'));
    await rm(join(box.state, 'samples.jsonl'));
    await mkdir(join(box.state, 'samples.jsonl'));
    const state = await readDashState(io(), new DashMemory(statePaths(box.state)));
    expect(state.problems.join('\n')).toMatch(/history\.jsonl/);
    expect(state.problems.join('\n')).toMatch(/items\.json/);
    expect(state.hosts.map((h) => h.id)).toEqual(['local']);
    expect(state.hosts[0]?.points).toEqual([]);
    const sections = sectionMarkup(renderSections(state, ''));
    expect(sections.problems).toContain('history.jsonl');
  });

  it('reads while a frozen process holds the lock of items.json: reads take no lock', async () => {
    await seed();
    const frozen = startWorker(bundle, ['hold', join(box.state, 'items.json')]);
    workers.push(frozen);
    expect(await frozen.firstLine).toBe('acquired');
    frozen.kill('SIGSTOP');
    const state = await readDashState(io(), new DashMemory(statePaths(box.state)));
    expect(state.boards.map((board) => board.owner)).toEqual(['w1:p1', 'w1:p2', 'w1:p3']);
  });

  it('draws a month of history by its newest rows', async () => {
    await freshHost(box.state, true);
    const entry = historyEntry({ ...child('i_x', 'w1:p1', 1000), closed_ms: NOW - 1000 }, undefined, 'Task.');
    const many: HistoryEntry[] = Array.from({ length: 20_000 }, (_, i) => ({
      ...entry,
      id: `i_${i}`,
      name: `child-${i}`,
      ended_ms: NOW - 20_000 + i,
    }));
    const state = { paths: statePaths(box.state), now: () => NOW, warn: () => undefined };
    await appendHistory(state, many);
    const read = await readDashState(io(), new DashMemory(statePaths(box.state)));
    expect(read.history).toHaveLength(20_000);
    const sections = sectionMarkup(renderSections(read, ''));
    expect(sections['history-body']).toContain('20000 runs');
    expect(sections['history-body']).toContain('child-19999');
    expect(sections['history-body']).not.toContain('child-19899<');
    expect(sections['history-body']).toContain('19900 older not shown');
    expect(sections['history-body'].length).toBeLessThan(150_000);
    expect(sections.receipts.length).toBeLessThan(100_000);
  });
});
