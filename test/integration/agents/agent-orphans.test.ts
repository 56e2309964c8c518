// Orphaned children through a real `serve`, the fake Herdr, fake agents and real repositories: a
// child that called `dogsled done` and whose owner's pane is gone is closed like `close` closes it
// (pane, worktree, the branch kept while it has commits to land), whatever cleanup was requested;
// one that is dirty, unpushed, working or blocked stays open with `orphaned: <reason>` on its item
// line, in `status --brief`, in prompt context and in sweeps.jsonl. A serve frozen inside the items
// lock mid-closure blocks no reader and finishes the closure once resumed.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markDone } from '../../../service/actions/done.js';
import { trackPane } from '../../../service/actions/track.js';
import { ORPHAN_CLOSED } from '../../../service/core/cleanup/orphan-rule.js';
import type { SweepPass } from '../../../service/core/cleanup/sweep-types.js';
import { DEFAULT_CONFIG } from '../../../service/state/config/config.js';
import { inspectLock } from '../../../service/state/engine/lock.js';
import type { HostIO } from '../../../service/state/io.js';
import { SweepPassSchema } from '../../../service/state/schemas/sweep-schemas.js';
import { requestSweep } from '../../../service/sweep/request.js';
import { readEvents } from '../../fakes/agents/harness.js';
import { runCli } from '../../helpers/cli.js';
import { freshRepo, type Repo, refSha, removeScenarios } from '../../helpers/git-scenarios.js';
import { waitFor } from '../../helpers/wait.js';
import { worktreeList } from '../cleanup/worktree-fixtures.js';
import { workIO } from '../jobs/job-queue-fixtures.js';
import { agentSuite, items, type Json, ok, paneIds, waitForNewLaunch } from './agent-fixtures.js';
import { removeRepo, sharedServe } from './agent-serve.js';
import { startChild } from './child-in-process.js';

// One sandbox, fake Herdr and serve for the file; each test its own repository and owners. A test's
// panes close when it ends and it waits until the service has closed every item: the next one
// counts orphans from a clean host, and its repository goes (removeRepo).
const suite = agentSuite({ serviceLock: false, share: 'state' });
const served = sharedServe(suite, { cores: 32, ttlMs: 90_000, intervalS: 1 });
let repo: Repo;
let panesBefore = new Set<string>();

beforeEach(async () => {
  repo = await freshRepo();
  panesBefore = new Set(await paneIds(suite.herdr));
});
afterEach(async () => {
  if (served.child.signalCode === null) served.child.kill('SIGCONT');
  for (const pane of await paneIds(suite.herdr)) {
    if (!panesBefore.has(pane)) await suite.herdr.call('pane.close', { pane_id: pane });
  }
  await waitFor(
    'every item closed after the test',
    async () => (await items(suite)).every((item) => item.closed_ms !== null) || undefined,
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  await removeRepo(repo);
});
afterAll(removeScenarios);

/** The service's own IO on the sandbox, for set-up that needs no CLI of its own (track, done). */
function hostIO(env: NodeJS.ProcessEnv): HostIO {
  return { ...workIO(suite.box), env, home: suite.box.home, config: structuredClone(DEFAULT_CONFIG) };
}

/** A new owner: the root pane of a workspace of its own, so closing it leaves the suite's caller. */
async function newOwner(): Promise<string> {
  return (await ok(suite.herdr, 'workspace.create', { cwd: suite.scratch })).root_pane.pane_id;
}

function as(pane: string): NodeJS.ProcessEnv {
  return { ...suite.env, HERDR_PANE_ID: pane };
}

interface Child {
  pane: string;
  path: string;
  item: string;
  branch: string;
}

/**
 * A child in a dogsled agent worktree (locked agent:worktree under .worktrees), tracked by `owner`,
 * with one commit (`pushed` to origin, `local` only) or none, that has called `dogsled done`.
 */
async function shellChild(owner: string, name: string, commit: 'pushed' | 'local' | null): Promise<Child> {
  const branch = `feat/${name}`;
  const path = await repo.worktree(branch, { lock: 'agent:worktree' });
  if (commit !== null) await repo.commit({ [`${name}.txt`]: `${name}\n` }, `${name} work`, path);
  if (commit === 'pushed') await repo.git(['push', '-q', 'origin', branch], path);
  const pane = (await ok(suite.herdr, 'workspace.create', { cwd: path })).root_pane.pane_id;
  // What `track` and the child's `done` do, without a Node start each: their CLI runs elsewhere.
  const tracked = await trackPane(hostIO(as(owner)), 'local', pane, name);
  await markDone(hostIO(as(pane)));
  return { pane, path, item: tracked.id, branch };
}

async function itemOf(id: string): Promise<Json> {
  return (await items(suite)).find((item) => item.id === id);
}

/** The item once closed (by the orphan check, the finish worker or anything else). */
function closedItem(id: string, what: string): Promise<Json> {
  return waitFor(
    what,
    async () => {
      const item = await itemOf(id);
      return item === undefined || item.closed_ms === null ? undefined : item;
    },
    { timeoutMs: 30_000 },
  );
}

async function history(): Promise<SweepPass[]> {
  const text = await readFile(join(suite.box.state, 'sweeps.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => SweepPassSchema.parse(JSON.parse(line)));
}

async function orphanedAs(id: string, reason: RegExp | string): Promise<Json> {
  return waitFor(
    `item ${id} orphaned: ${reason}`,
    async () => {
      const item = await itemOf(id);
      const text = item?.orphaned?.reason;
      if (text === undefined || text === null) return undefined;
      return (typeof reason === 'string' ? text === reason : reason.test(text)) ? item : undefined;
    },
    { timeoutMs: 30_000 },
  );
}

describe('an orphan whose checkout loses nothing is closed', () => {
  it('a fake agent that committed, pushed, called done and died: closed once its owner is gone, branch kept', async () => {
    const owner = await newOwner();
    const task = `Finish.\n\n\`\`\`fake-agent\n${JSON.stringify({
      steps: [
        { reply: 'Starting.' },
        { sleep_ms: 300 },
        {
          run: 'echo work > work.txt && git add work.txt && git commit -qm "child work" && git push -q origin HEAD',
        },
        { run: 'dogsled done' },
        { crash: 0 },
      ],
    })}\n\`\`\`\n`;
    const doc = await startChild(
      suite,
      { kind: 'claude', name: 'lost', branch: 'feat/lost', task, cwd: repo.main },
      as(owner),
    );
    const launch = await waitForNewLaunch(suite, (l) => l.herdr_pane_id === doc.pane);
    await waitFor('the child died after done', async () =>
      ((await readEvents(launch)) as Json[]).find((e) => e.event === 'exit'),
    );
    // Its owner is alive: it is no orphan, and nothing closes it (the agent left, so no turn ends).
    await waitFor(
      'the agent gone from Herdr',
      async () =>
        (await ok(suite.herdr, 'agent.list')).agents.some((a: Json) => a.pane_id === doc.pane)
          ? undefined
          : true,
      { timeoutMs: 20_000 },
    );
    const waiting = await itemOf(doc.item);
    expect(waiting).toMatchObject({ closed_ms: null });
    expect(waiting.orphaned ?? null).toBeNull();

    await ok(suite.herdr, 'pane.close', { pane_id: owner });
    const closed = await closedItem(doc.item, 'the orphan closed');
    expect(closed.close_reason).toBe(ORPHAN_CLOSED);
    expect(await paneIds(suite.herdr)).not.toContain(doc.pane);
    expect((await worktreeList(repo)).map((w) => w.path)).not.toContain(doc.worktree);
    // main does not hold its commit (only origin/feat/lost does): the branch stays to be landed.
    expect(await refSha(repo, 'refs/heads/feat/lost')).not.toBeNull();
    const pass = await waitFor(
      'the closure in sweeps.jsonl',
      async () => (await history()).find((p) => p.results.some((r) => r.path === doc.worktree)),
      { timeoutMs: 10_000 },
    );
    expect(pass).toMatchObject({
      trigger: 'orphans',
      request_ms: null,
      results: [
        expect.objectContaining({
          kind: 'orphan',
          path: doc.worktree,
          branch: 'feat/lost',
          branch_deleted: false,
        }),
      ],
    });
    const marks = JSON.parse(await readFile(join(suite.box.state, 'done.json'), 'utf8')).marks;
    expect(marks.filter((mark: Json) => mark.pane === doc.pane)).toEqual([
      expect.objectContaining({ state: 'closed', item: doc.item }),
    ]);
  });

  it('a landed child in a shell pane: worktree and branch go, without any sweep request', async () => {
    const requested = await readFile(join(suite.box.state, 'sweep-request.json'), 'utf8').catch(() => null);
    const owner = await newOwner();
    const child = await shellChild(owner, 'landed', null);
    await ok(suite.herdr, 'pane.close', { pane_id: owner });
    const closed = await closedItem(child.item, 'the orphan closed');
    expect(closed.close_reason).toBe(ORPHAN_CLOSED);
    expect((await worktreeList(repo)).map((w) => w.path)).toEqual([repo.main]);
    expect(await refSha(repo, `refs/heads/${child.branch}`)).toBeNull();
    // No request came (the file holds the last one another test made, if any).
    expect(await readFile(join(suite.box.state, 'sweep-request.json'), 'utf8').catch(() => null)).toBe(
      requested,
    );
  });
});

describe('an orphan that would lose or disturb work stays open with its reason', () => {
  it('dirty, unpushed, working and blocked: reasons on the item lines, counted by the brief and prompt context', async () => {
    const owner = await newOwner();
    const dirty = await shellChild(owner, 'dirty', 'pushed');
    const unpushed = await shellChild(owner, 'unpushed', 'local');
    const working = await shellChild(owner, 'working', 'pushed');
    const blocked = await shellChild(owner, 'blocked', 'pushed');
    // After done: an untracked file in one, an agent at work or waiting on a question in two.
    await writeFile(join(dirty.path, 'notes.txt'), 'late\n');
    for (const [child, state] of [
      [working, 'working'],
      [blocked, 'blocked'],
    ] as const) {
      await ok(suite.herdr, 'pane.report_agent', {
        pane_id: child.pane,
        source: 'test',
        agent: 'claude',
        state,
        ...(state === 'blocked' ? { message: 'Which \u001b[31mone\u001b[0m?' } : {}),
      });
    }
    await ok(suite.herdr, 'pane.close', { pane_id: owner });

    await orphanedAs(dirty.item, 'dirty');
    await orphanedAs(unpushed.item, /^unpushed: \d+ commit/);
    await orphanedAs(working.item, 'working');
    await orphanedAs(blocked.item, 'blocked');
    // Nothing of theirs went.
    const paths = (await worktreeList(repo)).map((w) => w.path);
    for (const child of [dirty, unpushed, working, blocked]) {
      expect(paths).toContain(child.path);
      expect(await paneIds(suite.herdr)).toContain(child.pane);
      expect(await refSha(repo, `refs/heads/${child.branch}`)).not.toBeNull();
    }

    const status = await runCli(['status'], suite.env);
    expect(status.code).toBe(0);
    const line = (item: string) => status.stdout.split('\n').find((l) => l.includes(item)) ?? '';
    expect(line(dirty.item)).toMatch(/orphaned: dirty$/);
    expect(line(unpushed.item)).toMatch(/orphaned: unpushed: \d+ commit/);
    expect(line(working.item)).toContain('orphaned: working');
    expect(line(blocked.item)).toContain('orphaned: blocked');
    for (const l of status.stdout.split('\n')) expect(l.length).toBeLessThanOrEqual(80);
    expect(status.stdout).not.toContain('\u001b');

    const brief = await runCli(['status', '--brief'], suite.env);
    expect(brief.stdout).toContain('4 orphaned');
    const context = await runCli(['hook', 'context', '--harness', 'pi'], suite.env);
    expect(context.code).toBe(0);
    expect(context.stdout).toContain('4 orphaned');

    const held = await waitFor(
      'the holds in sweeps.jsonl',
      async () => {
        const all = await history();
        const last = all.filter((pass) => (pass.orphans?.length ?? 0) === 4).at(-1);
        return last;
      },
      { timeoutMs: 10_000 },
    );
    expect(held.trigger).toBe('orphans');
    expect(held.orphans?.map((o) => o.reason).sort()).toEqual([
      'blocked',
      'dirty',
      expect.stringMatching(/^unpushed: \d+ commit/),
      'working',
    ]);

    // The working child goes idle: its turn ended, and the finish worker closes it like any finished
    // child (it runs first in the lane), so the orphan check has nothing left to do for it.
    await ok(suite.herdr, 'pane.report_agent', {
      pane_id: working.pane,
      source: 'test',
      agent: 'claude',
      state: 'idle',
    });
    const closed = await closedItem(working.item, 'the idle orphan closed');
    expect(closed.close_reason).toBe('done');
    expect(await itemOf(dirty.item)).toMatchObject({ closed_ms: null });
  });

  it('a child whose owner is still there is no orphan; a requested pass records the one that is held', async () => {
    const owner = await newOwner();
    const child = await shellChild(owner, 'kept', null);
    const other = await newOwner();
    const second = await shellChild(other, 'gone-owner', 'local');
    await ok(suite.herdr, 'pane.close', { pane_id: other });
    await orphanedAs(second.item, /^unpushed: \d+ commit/);
    // Every check that orphaned the second one also looked at the first: its owner keeps it as it was.
    expect(await itemOf(child.item)).toMatchObject({ closed_ms: null });
    expect((await itemOf(child.item)).orphaned ?? null).toBeNull();
    expect((await worktreeList(repo)).map((w) => w.path)).toContain(child.path);

    // A requested cleanup pass records the orphan it holds in sweep.json, and status lists it.
    await requestSweep(workIO(suite.box), null);
    const latest = await waitFor(
      'the requested pass',
      async () => {
        const text = await readFile(join(suite.box.state, 'sweep.json'), 'utf8').catch(() => null);
        const pass = text === null ? undefined : SweepPassSchema.parse(JSON.parse(text));
        return pass?.trigger === 'request' ? pass : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(latest.orphans).toEqual([
      expect.objectContaining({
        item: second.item,
        name: 'gone-owner',
        reason: expect.stringMatching(/^unpushed: /),
      }),
    ]);
    const status = await runCli(['status'], suite.env);
    expect(status.stdout).toMatch(/^ {2}- held: orphan gone-owner \(w\w+:p\w+\): unpushed: /m);
  });
});

describe('a serve frozen inside the items lock while it closes an orphan', () => {
  it('blocks no reader, is not overtaken, and completes the closure once resumed', async () => {
    const child0 = await served.restart({
      DOGSLED_TEST_LOCK_HOLD_FILE: 'items.json',
      DOGSLED_TEST_LOCK_HOLD_MS: '1500',
    });
    const owner = await newOwner();
    const child = await shellChild(owner, 'frozen', null);
    await ok(suite.herdr, 'pane.close', { pane_id: owner });
    const file = join(suite.box.state, 'items.json');
    await waitFor(
      'serve inside the items lock',
      async () => ((await inspectLock(file))?.owner?.pid === child0.pid ? true : undefined),
      { timeoutMs: 30_000 },
    );
    child0.kill('SIGSTOP');
    try {
      const status = await runCli(['status', '--json'], suite.env);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout).items.find((i: Json) => i.id === child.item)).toBeDefined();
      // An owner's explicit close meanwhile finds the pane already closed, in one line.
      const close = await runCli(['close', child.pane], suite.env, { timeoutMs: 60_000 });
      expect(close.code).toBe(2);
      expect(close.stderr).toMatch(/^dogsled: close: [^\n]*\n$/);
    } finally {
      child0.kill('SIGCONT');
    }
    const closed = await closedItem(child.item, 'the closure completed');
    expect(closed.close_reason).toBe(ORPHAN_CLOSED);
    const results = await waitFor(
      'the closure in sweeps.jsonl',
      async () => {
        const all = (await history()).flatMap((pass) => pass.results).filter((r) => r.path === child.path);
        return all.length > 0 ? all : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(results).toEqual([expect.objectContaining({ kind: 'orphan', path: child.path })]);
  });
});
