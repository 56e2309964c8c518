// What budgets count, read from real files: history.jsonl's children, closed items not yet in it,
// and this host's running children from their transcripts so far (found through host.json's agent
// panes), each child once; a transcript is read again only when it changed; a running child on a
// peer, one without a transcript, or one whose transcript is a FIFO is an unknown cost, never 0.
import { execFileSync } from 'node:child_process';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Item } from '../../../service/core/agents/item-types.js';
import { historyEntry } from '../../../service/core/history/history-entry.js';
import { daySpend } from '../../../service/core/receipts/day-budget.js';
import { RunningCosts, readChildSpends } from '../../../service/history/day-spend.js';
import { appendHistory } from '../../../service/history/history-file.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import type { HostIO } from '../../../service/state/io.js';
import { statePaths } from '../../../service/state/paths.js';
import { updateItems } from '../../../service/state/records/queue-items.js';
import { type Sandbox, sandbox } from '../../helpers/cli.js';
import { itemFixture } from '../../helpers/job-fixtures.js';
import { agentPaneFixture, snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';

let box: Sandbox;
const NOW = Date.now();

beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

function io(): HostIO {
  return {
    paths: statePaths(box.state),
    now: () => NOW,
    warn: () => undefined,
    config: structuredClone(DEFAULT_CONFIG),
    env: {},
    home: box.home,
  };
}

const receipt = (usd: number | null) => ({
  tokens: 1000,
  usd,
  turns: 1,
  model: 'claude-sonnet-4-5',
  models: [],
  prices_as_of: '2025-11-24',
  wall_ms: 1000,
});

/** One Claude response line using `output` tokens of Sonnet: $15 a million. */
function claudeLine(output: number): string {
  const usage = {
    input_tokens: 0,
    output_tokens: output,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  const id = `msg_${Math.random().toString(36).slice(2)}`;
  return `${JSON.stringify({
    type: 'assistant',
    requestId: `req_${id}`,
    message: { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], usage },
  })}\n`;
}

function agentItem(id: string, over: Partial<Item> = {}): Item {
  return itemFixture({
    id,
    kind: 'agent',
    owner: 'w1:p1',
    harness: 'claude',
    created_ms: NOW - 60_000,
    ...over,
  });
}

async function writeItems(list: Item[]): Promise<void> {
  await updateItems(io(), (items) => ({ result: undefined, next: { ...items, items: list } }));
}

describe('the spend budgets count', () => {
  it('takes history, closed items and running children here, each child once', async () => {
    const transcript = join(box.root, 'running.jsonl');
    await writeFile(transcript, claudeLine(100_000) + claudeLine(100_000));
    const ended = agentItem('i_ended', {
      closed_ms: NOW - 1000,
      close_reason: 'done',
      receipt: receipt(0.5),
    });
    await appendHistory(io(), [historyEntry({ ...ended, closed_ms: NOW - 1000 }, undefined, 'Task.')]);
    await writeItems([
      ended, // in history too: counted once
      agentItem('i_closed', { closed_ms: NOW - 500, close_reason: 'closed', receipt: receipt(0.25) }),
      agentItem('i_running', { terminal_id: 'term_run' }),
      agentItem('i_peer', { host: 'gpu', terminal_id: 'term_run' }),
      agentItem('i_blind', { terminal_id: 'term_none' }),
      itemFixture({ id: 'i_job', owner: 'w1:p1' }),
    ]);
    const snapshot = snapshotFixture({ sample_ms: NOW, cores: 8, busy: 0 });
    snapshot.probe.agent_panes = [
      agentPaneFixture('w1:p3', 'working', NOW, {
        terminal_id: 'term_run',
        transcript,
        transcript_modified: NOW - 100,
      }),
      agentPaneFixture('w1:p4', 'working', NOW, { terminal_id: 'term_none' }),
    ];
    await writeSnapshot(box.state, snapshot);

    const costs = new RunningCosts();
    const spends = await readChildSpends(io(), costs);
    expect(spends.map((s) => [s.id, s.host, s.usd, s.ended_ms === null ? 'running' : 'ended'])).toEqual([
      ['i_ended', 'local', 0.5, 'ended'],
      ['i_ended', 'local', 0.5, 'ended'],
      ['i_closed', 'local', 0.25, 'ended'],
      ['i_running', 'local', 3, 'running'],
      ['i_peer', 'gpu', null, 'running'],
      ['i_blind', 'local', null, 'running'],
    ]);
    const day = { start_ms: NOW - 3_600_000, end_ms: NOW + 3_600_000 };
    const spend = daySpend(spends, day);
    expect(spend.owners.get('w1:p1')).toBe(3.75);
    expect(spend.unknown).toBe(2);

    // The transcript grew, but the snapshot still names its old modification time: not read again.
    await appendFile(transcript, claudeLine(100_000));
    expect((await readChildSpends(io(), costs)).find((s) => s.id === 'i_running')?.usd).toBe(3);
    // The snapshot saw the change: read again.
    const [pane, other] = snapshot.probe.agent_panes;
    if (pane === undefined || other === undefined) throw new Error('two panes');
    snapshot.probe.agent_panes = [{ ...pane, transcript_modified: NOW }, other];
    await writeSnapshot(box.state, snapshot);
    expect((await readChildSpends(io(), costs)).find((s) => s.id === 'i_running')?.usd).toBe(4.5);
  });

  it('counts a transcript that is a FIFO as unknown, without blocking on it', async () => {
    const fifo = join(box.root, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    await writeItems([agentItem('i_fifo', { terminal_id: 'term_fifo' })]);
    const snapshot = snapshotFixture({ sample_ms: NOW, cores: 8, busy: 0 });
    snapshot.probe.agent_panes = [
      agentPaneFixture('w1:p3', 'working', NOW, {
        terminal_id: 'term_fifo',
        transcript: fifo,
        transcript_modified: NOW,
      }),
    ];
    await writeSnapshot(box.state, snapshot);
    expect((await readChildSpends(io())).map((s) => s.usd)).toEqual([null]);
  });
});
