// A child's whole life through a real `serve` and the fake Herdr: `agent --branch` starts a Pi, a
// Claude and a Codex child, each commits, calls `dogsled done` in its final working turn and replies;
// the service then captures the reply onto the owner's item, closes the pane and the worktree and
// keeps the branch with its commit. `read` shows the reply afterwards. `done` refuses open children,
// queued tickets and a dirty worktree before it marks anything.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SHIPPED_AS_OF } from '../../../service/core/receipts/prices.js';
import { receiptText } from '../../../service/core/receipts/receipt.js';
import { readHistory } from '../../../service/history/history-file.js';
import { readBranchObservations } from '../../../service/state/records/branch-observations.js';
import { DoneFileSchema } from '../../../service/state/records/done-marks.js';
import { readEvents } from '../../fakes/agents/harness.js';
import { runCli } from '../../helpers/cli.js';
import { freshRepo, type Repo, refSha, removeScenarios } from '../../helpers/git-scenarios.js';
import { waitFor } from '../../helpers/wait.js';
import { worktreeList } from '../cleanup/worktree-fixtures.js';
import { workIO } from '../jobs/job-queue-fixtures.js';
import {
  agentCli,
  agentSuite,
  doneTask,
  items,
  type Json,
  ok,
  paneIds,
  quickTask,
  waitForNewLaunch,
} from './agent-fixtures.js';
import { removeRepo, sharedServe } from './agent-serve.js';
import { startChild } from './child-in-process.js';

// One sandbox, fake Herdr and serve for the file (room for every child it starts); each test its own
// repository, and names, ids and panes of its own to find its records by.
const suite = agentSuite({ serviceLock: false, share: 'state' });
sharedServe(suite, { cores: 32, ttlMs: 90_000, intervalS: 1 });
let repo: Repo;

beforeEach(async () => {
  repo = await freshRepo();
});
afterEach(() => removeRepo(repo));
afterAll(removeScenarios);

/** The fakes' default models (test/fakes/agents/lib/main.mjs), as each transcript names them. */
const MODELS = {
  claude: 'claude-sonnet-4-5-20250929',
  codex: 'gpt-5-codex',
  pi: 'anthropic/claude-sonnet-4-5',
};

/** The owner's board, group by group. */
async function boardGroups(): Promise<Record<string, Json[]>> {
  const result = await runCli(['board', '--json'], suite.env);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return Object.fromEntries(JSON.parse(result.stdout).groups.map((g: Json) => [g.id, g.rows]));
}

async function doneMarks(): Promise<Json[]> {
  const text = await readFile(join(suite.box.state, 'done.json'), 'utf8').catch(() => null);
  return text === null ? [] : DoneFileSchema.parse(JSON.parse(text)).marks;
}

/** The done marks of one pane (the file holds every test's). */
async function marksOf(pane: string): Promise<Json[]> {
  return (await doneMarks()).filter((mark) => mark.pane === pane);
}

/** The branch watch's newest observation of `item`'s branch, once `ready` accepts it. */
function observed(item: string, what: string, ready: (seen: Json) => boolean): Promise<Json> {
  return waitFor(
    what,
    async () => {
      const seen = (await readBranchObservations(workIO(suite.box))).filter((o) => o.item === item).at(-1);
      return seen !== undefined && ready(seen) ? seen : undefined;
    },
    { timeoutMs: 20_000 },
  );
}

describe('a child that calls dogsled done', () => {
  // A name per attempt: the state is the file's, so a retried case would otherwise find its first
  // attempt's child in `read` and `history --stats` too.
  let attempt = 0;
  it.each(['pi', 'claude', 'codex'] as const)(
    '%s: its reply is captured, its pane and worktree close, its branch stays with its commit',
    async (kind) => {
      const name = `unit-${kind}-${++attempt}`;
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
          const mine = await marksOf(doc.pane);
          return mine.every((mark) => mark.state === 'closed') ? mine : undefined;
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
      const replyRecord = inbox.records.find((r: Json) => r.ref === `reply:${doc.item}`);
      expect(replyRecord.text).toContain(reply);

      // Its receipt: every response the fake wrote used FAKE_USAGE (18,666 tokens), at the fake's model.
      const receipt = item.receipt as Json;
      const perTurn = { claude: 0.010593, pi: 0.010593, codex: 0.0051825 }[kind];
      expect(receipt).toMatchObject({ model: MODELS[kind], prices_as_of: SHIPPED_AS_OF });
      expect(receipt.turns).toBeGreaterThanOrEqual(3);
      expect(receipt.tokens).toBe(receipt.turns * 18_666);
      expect(receipt.usd).toBeCloseTo(receipt.turns * perTurn, 3);
      expect(receipt.wall_ms).toBeGreaterThan(0);
      const cost = receiptText(receipt);
      expect(cost).toMatch(/^\d+k tok · \$0\.\d\d$/);
      expect(replyRecord.text).toContain(`${name} finished (${cost} at`);

      const read = await runCli(['read', name, '--json'], suite.env);
      expect(read.code).toBe(0);
      expect(JSON.parse(read.stdout)).toMatchObject({ kind: 'agent', name, reply, output: null, receipt });
      const human = await runCli(['read', name], suite.env);
      expect(human.stdout).toContain(
        `receipt: ${cost} at ${SHIPPED_AS_OF} prices, ${MODELS[kind]} (${receipt.turns} turns`,
      );
      // The service's history pass writes it to history.jsonl; `history --stats` sums it.
      await waitFor(
        'the child in history.jsonl',
        async () => (await readHistory(workIO(suite.box))).entries.some((entry) => entry.id === doc.item),
        { timeoutMs: 20_000 },
      );
      const history = await runCli(['history', '--stats', '--json', '--search', name], suite.env);
      const stats = JSON.parse(history.stdout);
      expect(stats.total).toMatchObject({
        runs: 1,
        ok: 1,
        tokens: receipt.tokens,
        usd: receipt.usd,
        unknown_usage: 0,
      });
      expect(stats.harness).toEqual([expect.objectContaining({ key: kind, runs: 1 })]);
      const listed = await runCli(['items', '--json'], suite.env);
      expect(JSON.parse(listed.stdout).items.find((i: Json) => i.id === doc.item).receipt).toEqual(receipt);

      // The owner's board shows the kept branch TO LAND (once the service's branch watch has seen it
      // ahead) until it is squash-merged into main.
      await observed(doc.item, 'the branch seen ahead', (seen) => seen.ahead > 0 && !seen.landed);
      const toLand = (await boardGroups()).to_land?.filter((row) => row.item === doc.item);
      expect(toLand).toEqual([
        expect.objectContaining({
          item: doc.item,
          reason: `${name}: branch ${branch} +1 to land`,
          receipt: cost,
        }),
      ]);
      const board = await runCli(['board'], suite.env);
      expect(board.stdout).toContain(`${name}: branch ${branch} +1 to land\n`);
      expect(board.stdout).toContain(`cost ${cost}\n`);
      await repo.squash(branch);
      await observed(doc.item, 'the branch seen landed', (seen) => seen.landed || seen.ahead <= 0);
      const landed = await boardGroups();
      expect(landed.to_land?.filter((row) => row.item === doc.item)).toEqual([]);
      // Landed, the child is a DONE row that still says what it cost.
      expect(landed.done).toContainEqual(
        expect.objectContaining({ item: doc.item, state: 'finished', receipt: cost }),
      );
    },
  );
});

describe('a child whose pane goes away', () => {
  it('has its item closed by the service: pane gone', async () => {
    const { pane, item } = await startChild(suite, { kind: 'codex', name: 'vanish', task: quickTask() });
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
  /** Starts a child that runs `dogsled done` at once; what it printed, and whether a mark came. */
  async function childRunsDone(name: string, setup: string[]): Promise<{ run: Json; marks: Json[] }> {
    const steps = [
      { reply: 'Ready.' },
      { sleep_ms: 400 },
      ...setup.map((run) => ({ run })),
      { run: 'dogsled done' },
      { reply: 'Tried.' },
    ];
    const task = `Try.\n\n\`\`\`fake-agent\n${JSON.stringify({ steps })}\n\`\`\`\n`;
    const before = await doneMarks();
    const { pane } = await startChild(suite, {
      kind: 'claude',
      name,
      branch: `feat/${name}`,
      task,
      cwd: repo.main,
    });
    const launch = await waitForNewLaunch(suite, (l) => l.herdr_pane_id === pane);
    // Its setup steps come first, a whole `dogsled agent` launch among them: more than waitFor's
    // default 10 s on a loaded machine.
    const run = await waitFor(
      'the child ran dogsled done',
      async () => {
        const events = (await readEvents(launch)) as Json[];
        return events.find(
          (event) => event.event === 'run' && String(event.command).includes('dogsled done'),
        );
      },
      { timeoutMs: 30_000 },
    );
    return { run, marks: newMarks(before, await doneMarks()) };
  }

  /** The marks in `after` that `before` did not hold. */
  function newMarks(before: Json[], after: Json[]): Json[] {
    const known = new Set(before.map((mark) => JSON.stringify([mark.launch, mark.pane])));
    return after.filter((mark) => !known.has(JSON.stringify([mark.launch, mark.pane])));
  }

  it('a dirty agent worktree', async () => {
    const { run, marks } = await childRunsDone('dirty-refuser', ['echo dirt > dirt.txt']);
    expect(JSON.stringify(run)).toContain('has uncommitted changes');
    expect(marks).toEqual([]);
  });

  it('an open child of its own', async () => {
    const { run, marks } = await childRunsDone('parent-refuser', [
      `dogsled agent --kind pi --name grandchild --message ${JSON.stringify('x')}`,
    ]);
    expect(JSON.stringify(run)).toContain('open child');
    expect(marks).toEqual([]);
  });

  it("in a plain shell: no agent runs there and it is no one's child", async () => {
    // A shell pane of its own: the file's caller owns open children, which done names first.
    const shell = (await ok(suite.herdr, 'workspace.create', { cwd: suite.scratch })).root_pane.pane_id;
    const before = await doneMarks();
    const result = await runCli(['done'], { ...suite.env, HERDR_PANE_ID: shell });
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      `dogsled: done: no agent runs in ${shell} and it is no one's child: a child runs done in its final working turn\n`,
    );
    expect(newMarks(before, await doneMarks())).toEqual([]);
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
    await startChild(suite, {
      kind: 'pi',
      name: 'reader',
      task: quickTask('Hello \u001b[31mred\u001b[0m'),
      cwd: repo.main,
    });
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
    // A caller of its own: the file's caller owns every other test's children.
    const caller = (await ok(suite.herdr, 'workspace.create', { cwd: suite.scratch })).root_pane.pane_id;
    const env = { ...suite.env, HERDR_PANE_ID: caller };
    const pane = (await ok(suite.herdr, 'workspace.create', { cwd: suite.scratch })).root_pane.pane_id;
    const result = await runCli(['track', 'local', pane, '--name', 'adopted', '--json'], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      kind: 'agent',
      pane,
      name: 'adopted',
      owner: caller,
    });
    const again = await runCli(['track', 'local', pane, '--name', 'twice'], env);
    expect(again.stderr).toMatch(/^dogsled: track: pane \S+ is already tracked as item i_\w+ \(adopted\)\n$/);
    const own = await runCli(['track', 'local', caller, '--name', 'me'], env);
    expect(own.stderr).toBe(`dogsled: track: ${caller} is your own pane\n`);
    const gone = await runCli(['track', 'local', 'w99:p9', '--name', 'ghost'], env);
    expect(gone.stderr).toBe('dogsled: track: no pane "w99:p9" in Herdr\n');
    const items = await runCli(['items', '--owner', caller, '--json'], env);
    expect(JSON.parse(items.stdout)).toMatchObject({
      items: [expect.objectContaining({ name: 'adopted' })],
      queue: [],
    });
  });
});
