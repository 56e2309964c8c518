// A child's whole life in a real tmux with no Herdr anywhere: `agent --branch` from a tmux pane makes
// the worktree and a session showing it, starts the fake Claude there as the pane's program, the
// child's own hooks (the dogsled plugin's commands in ~/.claude/settings.json) report its state,
// it commits and calls `dogsled done`; a real `serve` then captures its reply, closes its session
// and worktree, keeps the branch and shows it TO LAND on the owner's board.

import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Item } from '../../../service/core/agents/item-types.js';
import { FAKE_AGENTS_BIN } from '../../fakes/agents/harness.js';
import { runCli, type Sandbox, sandbox, type startCli } from '../../helpers/cli.js';
import { freshRepo, type Repo, refSha, removeScenarios } from '../../helpers/git-scenarios.js';
import { startTmuxServer, type TmuxServer } from '../../helpers/tmux-server.js';
import { waitFor } from '../../helpers/wait.js';
import { doneTask, type Json } from '../agents/agent-fixtures.js';
import { worktreeList } from '../cleanup/worktree-fixtures.js';
import { items, killAll, roomFor5, startServe, untilEligible } from '../jobs/job-queue-fixtures.js';
import { dogsledBin, installPluginHooks } from './tmux-fixtures.js';

let box: Sandbox;
let server: TmuxServer;
let repo: Repo;
let env: NodeJS.ProcessEnv;
let caller: string;
let stopTicker: () => void = () => undefined;
const running: Array<ReturnType<typeof startCli>> = [];

beforeEach(async () => {
  box = await sandbox({ DOGSLED_TEST: '1', DOGSLED_TEST_LAUNCH_BACKOFF_SCALE: '0.01' });
  repo = await freshRepo();
  const bin = await dogsledBin(box.root);
  await installPluginHooks(box.home);
  server = await startTmuxServer({
    dir: box.root,
    name: 'flow',
    env: {
      PATH: `${bin}:${FAKE_AGENTS_BIN}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: box.home,
      DOGSLED_STATE: box.state,
      DOGSLED_TEST: '1',
      FAKE_AGENT_LOG_DIR: join(box.root, 'agent-log'),
      GIT_AUTHOR_NAME: 'Child',
      GIT_AUTHOR_EMAIL: 'child@example.com',
      GIT_COMMITTER_NAME: 'Child',
      GIT_COMMITTER_EMAIL: 'child@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    },
  });
  caller = (await server.tmux('display-message', '-p', '-t', 'base:', '#{pane_id}')).trim();
  const host = await roomFor5(box, 90_000);
  stopTicker = host.stop;
  // The service runs inside the same tmux server, in no pane of its own.
  startServe({ ...host.env, ...server.env }, running);
  await untilEligible(box);
  env = { ...box.env, ...server.env, TMUX_PANE: caller };
});

afterEach(async () => {
  stopTicker();
  await killAll(running);
  await server.kill();
  await box.cleanup();
});
afterAll(removeScenarios);

async function boardRows(group: string): Promise<Json[]> {
  const result = await runCli(['board', '--json'], env);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(result.stdout).groups.find((g: Json) => g.id === group).rows;
}

async function paneIds(): Promise<string[]> {
  return (await server.tmux('list-panes', '-a', '-F', '#{pane_id}')).trim().split('\n');
}

describe('a child in tmux', () => {
  it('starts on its branch, works, calls done, and is closed with its branch TO LAND', async () => {
    const reply = 'Finished in tmux: added work.txt.';
    const started = await runCli(
      [
        'agent',
        '--kind',
        'claude',
        '--name',
        'unit-tmux',
        '--branch',
        'feat/tmux-done',
        '--json',
        '--message',
        doneTask(reply),
      ],
      env,
      { cwd: repo.main, timeoutMs: 60_000 },
    );
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
    const doc = JSON.parse(started.stdout);
    const path = join(repo.main, '.worktrees', 'feat-tmux-done');
    expect(doc.pane).toMatch(/^%\d+$/);

    const item = await waitFor(
      'the child closed by the service',
      async () => (await items(box)).find((i: Item) => i.id === doc.item && i.closed_ms !== null),
      { timeoutMs: 40_000 },
    );
    expect(item).toMatchObject({ close_reason: 'done', reply, branch: 'feat/tmux-done', name: 'unit-tmux' });
    expect(await paneIds()).not.toContain(doc.pane);
    expect(await paneIds()).toContain(caller);
    expect((await worktreeList(repo)).map((w) => w.path)).not.toContain(path);
    expect(await refSha(repo, 'refs/heads/feat/tmux-done')).not.toBeNull();
    expect((await repo.git(['log', '--format=%s', 'main..feat/tmux-done'])).trim()).toBe('child work');

    // The hooks told the service what the child was doing: its `done` saw it working in a session
    // the UserPromptSubmit hook named, and the Stop hook's idle let the service close it.
    // The item closes first; the mark follows it to closed.
    const marks = await waitFor(
      'the mark closed',
      async () => {
        const all = JSON.parse(await readFile(join(box.state, 'done.json'), 'utf8')).marks;
        return all.every((mark: Json) => mark.state === 'closed') ? all : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(marks).toEqual([
      expect.objectContaining({
        launch: doc.launch,
        state: 'closed',
        pane: doc.pane,
        seq: expect.any(Number),
        agent_session: expect.stringMatching(/\.jsonl$/),
      }),
    ]);
    // The owner's inbox (its tmux terminal) holds the child's reply.
    const pid = (await server.tmux('display-message', '-p', '#{pid}')).trim();
    const inbox = JSON.parse(await readFile(join(box.state, 'inbox', `${caller}@${pid}.json`), 'utf8'));
    expect(inbox.records).toContainEqual(
      expect.objectContaining({
        kind: 'reply',
        sender: expect.objectContaining({ name: 'unit-tmux', pane: doc.pane }),
        text: expect.stringContaining(reply),
      }),
    );

    const toLand = await waitFor(
      'the TO LAND row',
      async () => {
        const rows = await boardRows('to_land');
        return rows.length > 0 ? rows : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(toLand).toEqual([
      expect.objectContaining({ item: doc.item, reason: 'unit-tmux: branch feat/tmux-done +1 to land' }),
    ]);
  });
});
