// A child's whole life through a real `serve` and the fake Herdr: `agent --branch` starts a Pi, a
// Claude and a Codex child, each commits, calls `dogsled done` in its final working turn and replies;
// the service then captures the reply onto the owner's item, closes the pane and the worktree and
// keeps the branch with its commit. `read` shows the reply afterwards. `done` refuses open children,
// queued tickets and a dirty worktree before it marks anything.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DoneFileSchema } from '../../../service/state/records/done-marks.js';
import { readEvents, waitForLaunch } from '../../fakes/agents/harness.js';
import { runCli, type startCli } from '../../helpers/cli.js';
import { freshRepo, type Repo, refSha, removeScenarios } from '../../helpers/git-scenarios.js';
import { waitFor } from '../../helpers/wait.js';
import { worktreeList } from '../cleanup/worktree-fixtures.js';
import { killAll, roomFor5, startServe, untilEligible } from '../jobs/job-queue-fixtures.js';
import {
  agentCli,
  agentSuite,
  doneTask,
  items,
  type Json,
  ok,
  paneIds,
  quickTask,
} from './agent-fixtures.js';

const suite = agentSuite({ serviceLock: false });
const running: Array<ReturnType<typeof startCli>> = [];
let stopTicker: () => void = () => undefined;
let repo: Repo;

beforeEach(async () => {
  repo = await freshRepo();
  const host = await roomFor5(suite.box, 90_000);
  stopTicker = host.stop;
  const { HERDR_PANE_ID: _pane, ...env } = { ...suite.env, ...host.env };
  startServe({ ...env, HERDR_SOCKET_PATH: suite.env.HERDR_SOCKET_PATH, PATH: suite.env.PATH }, running);
  await untilEligible(suite.box);
});
afterEach(async () => {
  stopTicker();
  await killAll(running);
});
afterAll(removeScenarios);

async function boardRows(group: string): Promise<Json[]> {
  const result = await runCli(['board', '--json'], suite.env);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(result.stdout).groups.find((g: Json) => g.id === group).rows;
}

async function doneMarks(): Promise<Json[]> {
  const text = await readFile(join(suite.box.state, 'done.json'), 'utf8').catch(() => null);
  return text === null ? [] : DoneFileSchema.parse(JSON.parse(text)).marks;
}

describe('a child that calls dogsled done', () => {
  it.each(['pi', 'claude', 'codex'] as const)(
    '%s: its reply is captured, its pane and worktree close, its branch stays with its commit',
    async (kind) => {
      const name = `unit-${kind}`;
      const branch = `feat/${kind}-done`;
      const reply = `Finished ${kind}: added work.txt.`;
      const started = await agentCli(
        suite,
        ['--kind', kind, '--name', name, '--branch', branch, '--json', '--message', doneTask(reply)],
        { cwd: repo.main },
      );
      expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
      const doc = JSON.parse(started.stdout);
      const path = join(repo.main, '.worktrees', `feat-${kind}-done`);

      const item = await waitFor(
        'the child closed by the service',
        async () => (await items(suite)).find((i) => i.id === doc.item && i.closed_ms !== null),
        { timeoutMs: 30_000 },
      );
      expect(item).toMatchObject({ close_reason: 'done', reply, branch, name });
      expect(await paneIds(suite.herdr)).not.toContain(doc.pane);
      expect((await worktreeList(repo)).map((w) => w.path)).not.toContain(path);
      // The branch is kept, one commit ahead of main: the owner lands it.
      const tip = await refSha(repo, `refs/heads/${branch}`);
      expect(tip).not.toBeNull();
      expect((await repo.git(['log', '--format=%s', `main..${branch}`])).trim()).toBe('child work');
      const marks = await waitFor(
        'the mark closed',
        async () => {
          const all = await doneMarks();
          return all.every((mark) => mark.state === 'closed') ? all : undefined;
        },
        { timeoutMs: 10_000 },
      );
      expect(marks).toEqual([
        expect.objectContaining({ launch: doc.launch, state: 'closed', pane: doc.pane }),
      ]);

      // The owner's inbox has the reply, from the child.
      const terminal = (await ok(suite.herdr, 'pane.get', { pane_id: suite.caller.pane })).pane.terminal_id;
      const inbox = JSON.parse(await readFile(join(suite.box.state, 'inbox', `${terminal}.json`), 'utf8'));
      expect(inbox.records).toContainEqual(
        expect.objectContaining({
          kind: 'reply',
          ref: `reply:${doc.item}`,
          sender: expect.objectContaining({ name, pane: doc.pane }),
          text: expect.stringContaining(`${name} finished`),
        }),
      );
      expect(inbox.records.find((r: Json) => r.kind === 'reply').text).toContain(reply);

      const read = await runCli(['read', name, '--json'], suite.env);
      expect(read.code).toBe(0);
      expect(JSON.parse(read.stdout)).toMatchObject({ kind: 'agent', name, reply, output: null });

      // The owner's board shows the kept branch TO LAND until it is squash-merged into main.
      const toLand = await waitFor(
        'the TO LAND row',
        async () => {
          const rows = await boardRows('to_land');
          return rows.length > 0 ? rows : undefined;
        },
        { timeoutMs: 20_000 },
      );
      expect(toLand).toEqual([
        expect.objectContaining({ item: doc.item, reason: `${name}: branch ${branch} +1 to land` }),
      ]);
      await repo.squash(branch);
      await waitFor(
        'the row gone',
        async () => ((await boardRows('to_land')).length === 0 ? true : undefined),
        { timeoutMs: 20_000 },
      );
    },
  );
});

describe('a child whose pane goes away', () => {
  it('has its item closed by the service: pane gone', async () => {
    const started = await agentCli(
      suite,
      ['--kind', 'codex', '--name', 'vanish', '--json', '--message', quickTask()],
      {
        cwd: suite.scratch,
      },
    );
    const { pane, item } = JSON.parse(started.stdout);
    await ok(suite.herdr, 'pane.close', { pane_id: pane });
    const closed = await waitFor(
      'the item closed',
      async () => (await items(suite)).find((i) => i.id === item && i.closed_ms !== null),
      { timeoutMs: 20_000 },
    );
    expect(closed.close_reason).toBe('pane gone');
  });
});

describe('done refuses before it marks anything', () => {
  /** Starts a child that runs `dogsled done` at once and records what it printed. */
  async function childRunsDone(setup: string[]): Promise<Json> {
    const steps = [
      { reply: 'Ready.' },
      { sleep_ms: 400 },
      ...setup.map((run) => ({ run })),
      { run: 'dogsled done' },
      { reply: 'Tried.' },
    ];
    const task = `Try.\n\n\`\`\`fake-agent\n${JSON.stringify({ steps })}\n\`\`\`\n`;
    const started = await agentCli(
      suite,
      ['--kind', 'claude', '--name', 'refuser', '--branch', 'feat/refuse', '--json', '--message', task],
      { cwd: repo.main },
    );
    expect(started.code).toBe(0);
    const launch = await waitForLaunch(suite.logDir);
    return waitFor('the child ran dogsled done', async () => {
      const events = (await readEvents(launch)) as Json[];
      return events.find((event) => event.event === 'run' && String(event.command).includes('dogsled done'));
    });
  }

  it('a dirty agent worktree', async () => {
    const run = await childRunsDone(['echo dirt > dirt.txt']);
    expect(JSON.stringify(run)).toContain('has uncommitted changes');
    expect(await doneMarks()).toEqual([]);
  });

  it('an open child of its own', async () => {
    const run = await childRunsDone([
      `dogsled agent --kind pi --name grandchild --message ${JSON.stringify('x')}`,
    ]);
    expect(JSON.stringify(run)).toContain('open child');
    expect(await doneMarks()).toEqual([]);
  });

  it("in a plain shell: no agent runs there and it is no one's child", async () => {
    const result = await runCli(['done'], suite.env);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      `dogsled: done: no agent runs in ${suite.caller.pane} and it is no one's child: a child runs done in its final working turn\n`,
    );
    expect(await doneMarks()).toEqual([]);
  });

  it('outside a Herdr pane', async () => {
    const { HERDR_PANE_ID: _p, ...env } = suite.env;
    const result = await runCli(['done'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'dogsled: done needs a Herdr or tmux pane (neither HERDR_PANE_ID nor TMUX_PANE is set): a child runs it in its own pane\n',
    );
  });
});

describe('read', () => {
  it("shows a running child's newest output without escapes", async () => {
    const started = await agentCli(
      suite,
      ['--kind', 'pi', '--name', 'reader', '--json', '--message', quickTask('Hello \u001b[31mred\u001b[0m')],
      {
        cwd: repo.main,
      },
    );
    expect(started.code).toBe(0);
    const read = await runCli(['read', 'reader'], suite.env);
    expect(read.code).toBe(0);
    expect(read.stdout).toMatch(/^agent reader \(local w\w+:p\w+\)\n/);
    expect(read.stdout).not.toContain('\u001b');
    expect(read.stdout).toContain('final reply: none yet');
  });

  it('names what it cannot find', async () => {
    const read = await runCli(['read', 'nobody\u001b[2J'], suite.env);
    expect(read.code).toBe(2);
    expect(read.stderr).toBe('dogsled: read: no child or job "nobody" here\n');
  });

  it("shows a job's log tail", async () => {
    const run = await runCli(
      ['run', '--wait', '--json', '--cwd', suite.scratch, '--', 'sh', '-c', 'printf "one\\ntwo\\033[31m\\n"'],
      suite.env,
    );
    const job = JSON.parse(run.stdout).job;
    const read = await runCli(['read', job, '--json'], suite.env);
    expect(JSON.parse(read.stdout)).toMatchObject({ kind: 'job', output: 'one\ntwo', reply: null });
  });
});

describe('track', () => {
  it('makes an existing pane a child of the caller, named', async () => {
    const pane = (await ok(suite.herdr, 'workspace.create', { cwd: suite.scratch })).root_pane.pane_id;
    const result = await runCli(['track', 'local', pane, '--name', 'adopted', '--json'], suite.env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      kind: 'agent',
      pane,
      name: 'adopted',
      owner: suite.caller.pane,
    });
    const again = await runCli(['track', 'local', pane, '--name', 'twice'], suite.env);
    expect(again.stderr).toMatch(/^dogsled: track: pane \S+ is already tracked as item i_\w+ \(adopted\)\n$/);
    const own = await runCli(['track', 'local', suite.caller.pane, '--name', 'me'], suite.env);
    expect(own.stderr).toBe(`dogsled: track: ${suite.caller.pane} is your own pane\n`);
    const gone = await runCli(['track', 'local', 'w99:p9', '--name', 'ghost'], suite.env);
    expect(gone.stderr).toBe('dogsled: track: no pane "w99:p9" in Herdr\n');
    const items = await runCli(['items', '--owner', suite.caller.pane, '--json'], suite.env);
    expect(JSON.parse(items.stdout)).toMatchObject({
      items: [expect.objectContaining({ name: 'adopted' })],
      queue: [],
    });
  });
});
