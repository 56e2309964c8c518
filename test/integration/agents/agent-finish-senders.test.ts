// What the finish worker tells through inboxes. When a child finishes (`dogsled done`, then its turn
// ends), everyone who sent it work hears so: the owner gets the captured reply, every other live
// sender `<name> finished; start a new child for more work` (once each, never as work that would
// cancel its own done mark). A child Herdr shows blocked is reported to its owner once per episode.
// Real panes in the fake Herdr, the service's finish worker in-process.

import { afterAll, describe, expect, it } from 'vitest';
import { appendRecord, pendingRecord } from '../../../service/core/inbox/inbox.js';
import { FinishWorker } from '../../../service/daemon/agents/finish-worker.js';
import type { WorkerIO } from '../../../service/daemon/worker-io.js';
import { readInbox, updateInbox } from '../../../service/inbox/inbox-files.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { statePaths } from '../../../service/state/paths.js';
import { runCli } from '../../helpers/cli.js';
import { removeScenarios } from '../../helpers/git-scenarios.js';
import { snapshotFixture, writeSnapshot } from '../../helpers/snapshot.js';
import { waitFor } from '../../helpers/wait.js';
import { appendItems, itemFixture } from '../jobs/job-queue-fixtures.js';
import { agentCli, agentSuite, items, ok, quickTask } from './agent-fixtures.js';
import { agentPane } from './watchdog-fixtures.js';

const suite = agentSuite();
afterAll(removeScenarios);

function workerIO(): WorkerIO {
  return {
    paths: statePaths(suite.box.state),
    now: Date.now,
    warn: () => undefined,
    env: suite.env,
    home: suite.box.home,
    config: structuredClone(DEFAULT_CONFIG),
    pid: process.pid,
    started_ms: Date.now(),
  };
}

async function terminalOf(pane: string): Promise<string> {
  return (await ok(suite.herdr, 'pane.get', { pane_id: pane })).pane.terminal_id;
}

/** A message `from` sent the child in an earlier turn (delivered before it marked done). */
async function sentEarlier(child: string, from: string, text: string): Promise<void> {
  const sender = { pane: from, terminal: await terminalOf(from), host: 'local', name: null };
  const at = Date.now() - 60_000;
  const record = {
    ...pendingRecord({ id: `m_${Math.random().toString(36).slice(2)}`, kind: 'message', sender, text }, at),
    state: 'delivered' as const,
    delivered_ms: at,
  };
  await updateInbox(workerIO(), await terminalOf(child), child, (inbox) => ({
    result: undefined,
    next: appendRecord(inbox, record).next,
  }));
}

describe('a finished child', () => {
  it('tells each other sender it finished, once, and the owner gets its reply', async () => {
    const started = await agentCli(suite, [
      '--kind',
      'pi',
      '--name',
      'fin',
      '--json',
      '--message',
      quickTask(),
    ]);
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
    const child = JSON.parse(started.stdout).pane as string;
    const other = (await ok(suite.herdr, 'workspace.create', { cwd: suite.scratch })).root_pane.pane_id;
    const gone = (await ok(suite.herdr, 'workspace.create', { cwd: suite.scratch })).root_pane.pane_id;
    await sentEarlier(child, other, 'Also cover the empty case.');
    await sentEarlier(child, other, 'And the full one.');
    await sentEarlier(child, gone, 'From a pane about to close.');
    await sentEarlier(child, suite.caller.pane, 'A note from the owner.');
    await ok(suite.herdr, 'pane.close', { pane_id: gone });

    const done = await runCli(['done'], { ...suite.env, HERDR_PANE_ID: child }, { cwd: suite.scratch });
    expect({ code: done.code, stderr: done.stderr }).toMatchObject({ code: 0 });
    // The child's final turn ends.
    await ok(suite.herdr, '_fake.agent.set_status', { target: child, status: 'working' });
    await ok(suite.herdr, '_fake.agent.set_status', { target: child, status: 'idle' });
    await waitFor(
      'the finish worker closing the child',
      async () => ((await new FinishWorker(workerIO()).pass()).length > 0 ? true : undefined),
      { timeoutMs: 20_000 },
    );
    expect((await items(suite)).find((item) => item.pane === child)).toMatchObject({ close_reason: 'done' });

    const sender = (await readInbox(workerIO(), await terminalOf(other)))?.records ?? [];
    expect(sender).toEqual([
      expect.objectContaining({
        kind: 'reply',
        text: 'fin finished; start a new child for more work.',
        sender: expect.objectContaining({ name: 'fin' }),
      }),
    ]);
    const owner = (await readInbox(workerIO(), await terminalOf(suite.caller.pane)))?.records ?? [];
    expect(owner.map((record) => record.kind)).toEqual(['reply']);
    expect(owner[0]?.text).toMatch(/^fin finished; its branch, if any, is kept for you to land/);
  }, 60_000);
});

describe('a blocked child', () => {
  async function blockedSince(pane: string, since: number): Promise<void> {
    const snapshot = snapshotFixture({ sample_ms: Date.now() - 500, cores: 8, busy: 0 });
    snapshot.probe.agent_panes = [
      agentPane(
        { pane, terminal: await terminalOf(pane) },
        {
          state: 'blocked',
          name: 'asker',
          transcript: null,
          transcript_modified: null,
          state_since_ms: since,
        },
      ),
    ];
    await writeSnapshot(suite.box.state, snapshot);
  }

  it("is reported to its owner's inbox once per blocked episode", async () => {
    const pane = (await ok(suite.herdr, 'workspace.create', { cwd: suite.scratch })).root_pane.pane_id;
    const item = itemFixture({
      id: 'i_asker',
      kind: 'agent',
      job: null,
      command: undefined,
      name: 'asker',
      harness: 'claude',
      pane,
      owner: suite.caller.pane,
    });
    await appendItems(suite.box, [item]);
    const first = Date.now() - 120_000;
    await blockedSince(pane, first);
    const worker = new FinishWorker(workerIO());
    await worker.pass();
    await worker.pass();
    await new FinishWorker(workerIO()).pass();
    const owner = async () =>
      (await readInbox(workerIO(), await terminalOf(suite.caller.pane)))?.records ?? [];
    expect(await owner()).toEqual([
      expect.objectContaining({
        kind: 'blocked',
        ref: `blocked:i_asker:${first}`,
        sender: expect.objectContaining({ pane, name: 'asker' }),
      }),
    ]);
    expect((await owner())[0]?.text).toBe(
      `asker is blocked, waiting for an answer in pane ${pane} (for 2m). Its newest output: dogsled read ${pane}`,
    );
    await blockedSince(pane, first + 60_000);
    await worker.pass();
    expect((await owner()).map((record) => record.kind)).toEqual(['blocked', 'blocked']);
  }, 60_000);
});
