// `dogsled close PANE` on children the fake Herdr runs in real worktrees: the last pane in an agent
// worktree takes the worktree with it (teardown, workspace, unlock, git worktree remove, the branch
// only when main holds it, the idle anchor); any other pane closes alone; every refusal of the spec
// leaves the repository (tree and refs, byte for byte), the panes and the item as they were.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { readAnchor } from '../../../service/worktrees/anchor.js';
import { runCli } from '../../helpers/cli.js';
import { freshRepo, type Repo, refSha, removeScenarios } from '../../helpers/git-scenarios.js';
import { waitFor } from '../../helpers/wait.js';
import { repoSnapshot, worktreeList } from '../cleanup/worktree-fixtures.js';
import { agentCli, agentSuite, items, type Json, ok, paneIds, quickTask } from './agent-fixtures.js';

// One fake Herdr for the file; each test has its own state dir and repository, and its panes close
// when it ends.
const suite = agentSuite({ share: 'herdr' });
let repo: Repo;

beforeEach(async () => {
  repo = await freshRepo();
});
afterAll(removeScenarios);

/** A child on `branch` in its worktree, idle after its first reply. */
async function child(name: string, branch: string): Promise<{ pane: string; path: string; item: string }> {
  const result = await agentCli(
    suite,
    ['--kind', 'claude', '--name', name, '--branch', branch, '--json', '--message', quickTask()],
    {
      cwd: repo.main,
    },
  );
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  const doc = JSON.parse(result.stdout);
  return { pane: doc.pane, path: doc.worktree, item: doc.item };
}

function close(pane: string, extra: string[] = []) {
  return runCli(['close', pane, '--json', ...extra], suite.env, { timeoutMs: 60_000 });
}

describe('close takes the last pane of an agent worktree with the worktree', () => {
  it('removes an integrated worktree, deletes its branch, closes the anchor Herdr opened, closes the item', async () => {
    const { pane, path, item } = await child('landed', 'feat/landed');
    const anchor = await readAnchor(join(repo.main, '.git'));
    expect(anchor).not.toBeNull();
    const result = await close(pane);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const doc = JSON.parse(result.stdout);
    expect(doc).toEqual({
      pane,
      worktree: {
        path,
        branch: 'feat/landed',
        workspace: expect.any(String),
        branch_deleted: true,
        anchor_closed: true,
      },
      pane_closed: true,
    });
    expect((await worktreeList(repo)).map((w) => w.path)).toEqual([repo.main]);
    expect(await refSha(repo, 'refs/heads/feat/landed')).toBeNull();
    const workspaces = (await ok(suite.herdr, 'workspace.list')).workspaces.map((w: Json) => w.workspace_id);
    expect(workspaces).not.toContain(anchor);
    expect(workspaces).not.toContain(doc.worktree.workspace);
    expect(await readAnchor(join(repo.main, '.git'))).toBeNull();
    expect((await items(suite)).find((i) => i.id === item)).toMatchObject({ close_reason: 'closed' });
  });

  it('runs the teardown in the worktree first; a failing teardown keeps everything and shows its output', async () => {
    await writeFile(
      join(repo.main, 'dogsled.toml'),
      '[worktree]\nteardown = ["echo tearing {branch}; exit 4"]\n',
    );
    await repo.commit({}, 'config');
    const { pane, path } = await child('teardown', 'feat/td');
    const result = await close(pane);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tearing');
    expect(await paneIds(suite.herdr)).toContain(pane);
    expect(await worktreeList(repo)).toContainEqual({ path, branch: 'feat/td', locked: 'agent:worktree' });
    expect((await items(suite))[0]?.closed_ms).toBeNull();
  });

  it('a pane outside any worktree closes alone', async () => {
    const result = await agentCli(suite, [
      '--kind',
      'pi',
      '--name',
      'plain',
      '--json',
      '--message',
      quickTask(),
    ]);
    const { pane } = JSON.parse(result.stdout);
    const closed = await close(pane);
    expect(JSON.parse(closed.stdout)).toEqual({ pane, worktree: null, pane_closed: true });
    expect(await paneIds(suite.herdr)).not.toContain(pane);
  });

  it('keeps the reply the child wrote without done on its item (spec: "close ends it and keeps the reply")', async () => {
    const result = await agentCli(suite, [
      '--kind',
      'claude',
      '--name',
      'answerer',
      '--json',
      '--message',
      quickTask('Here is my answer: 42.'),
    ]);
    const { pane, item } = JSON.parse(result.stdout);
    // Its turn ended (the reply is in its transcript): Herdr shows it idle or done.
    await waitFor(
      'the child finished its turn',
      async () => {
        const status = (await ok(suite.herdr, 'agent.get', { target: pane })).agent.agent_status;
        return status === 'idle' || status === 'done' ? true : undefined;
      },
      { timeoutMs: 15_000 },
    );
    const closed = await close(pane);
    expect({ code: closed.code, stderr: closed.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await items(suite)).find((i) => i.id === item)).toMatchObject({
      close_reason: 'closed',
      reply: 'Here is my answer: 42.',
    });
    const read = await runCli(['read', 'answerer', '--json'], suite.env);
    expect(JSON.parse(read.stdout)).toMatchObject({ name: 'answerer', reply: 'Here is my answer: 42.' });
    // Its receipt too: the task file read and the reply, two responses of the fake's usage.
    expect(JSON.parse(read.stdout).receipt).toMatchObject({ tokens: 2 * 18_666, turns: 2, usd: 0.0212 });
  });

  it('says a closed child whose transcript records no usage cost "usage unknown", never 0', async () => {
    const task = `Answer.\n\n\`\`\`fake-agent\n${JSON.stringify({ usage: false, steps: [{ reply: 'No meter.' }] })}\n\`\`\`\n`;
    const result = await agentCli(suite, [
      '--kind',
      'claude',
      '--name',
      'unmetered',
      '--json',
      '--message',
      task,
    ]);
    const { pane, item } = JSON.parse(result.stdout);
    await waitFor(
      'the child finished its turn',
      async () => {
        const status = (await ok(suite.herdr, 'agent.get', { target: pane })).agent.agent_status;
        return status === 'idle' || status === 'done' ? true : undefined;
      },
      { timeoutMs: 15_000 },
    );
    const closed = await close(pane);
    expect({ code: closed.code, stderr: closed.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await items(suite)).find((i) => i.id === item)?.receipt).toMatchObject({
      tokens: null,
      usd: null,
    });
    const read = await runCli(['read', 'unmetered'], suite.env);
    expect(read.stdout).toContain('receipt: usage unknown');
    const board = await runCli(['board', '--json'], suite.env);
    const done = JSON.parse(board.stdout).groups.find((g: Json) => g.id === 'done').rows;
    expect(done).toContainEqual(expect.objectContaining({ item, state: 'closed', receipt: 'usage unknown' }));
  });

  it("closes only this host's items of the pane: a peer's item with the same pane id stays open", async () => {
    const started = await agentCli(suite, [
      '--kind',
      'pi',
      '--name',
      'here',
      '--json',
      '--message',
      quickTask(),
    ]);
    const { pane, item } = JSON.parse(started.stdout);
    // Pane ids repeat across hosts: a child on a peer can have this very id there.
    const file = join(suite.box.state, 'items.json');
    const doc = JSON.parse(await readFile(file, 'utf8'));
    const mine = doc.items.find((entry: Json) => entry.id === item);
    doc.items.push({ ...mine, id: 'i_peer0001', host: 'netcup', launch: 'l_peer0001' });
    await writeFile(file, JSON.stringify(doc));
    const closed = await close(pane, ['--host', 'local']);
    expect({ code: closed.code, stderr: closed.stderr }).toEqual({ code: 0, stderr: '' });
    const after = await items(suite);
    expect(after.find((entry) => entry.id === item)?.closed_ms).not.toBeNull();
    expect(after.find((entry) => entry.id === 'i_peer0001')?.closed_ms).toBeNull();
  });

  it('a pane whose worktree another agent still uses closes alone; the checkout stays', async () => {
    const { pane, path } = await child('first', 'feat/shared');
    const other = (await ok(suite.herdr, 'tab.create', { cwd: path })).root_pane.pane_id;
    await ok(suite.herdr, 'agent.start', { name: 'second', kind: 'pi', pane_id: other, args: [] });
    await ok(suite.herdr, '_fake.agent.set_status', { target: other, status: 'idle' }).catch(() => undefined);
    const closed = await close(pane);
    expect(JSON.parse(closed.stdout)).toEqual({ pane, worktree: null, pane_closed: true });
    expect(await worktreeList(repo)).toContainEqual({
      path,
      branch: 'feat/shared',
      locked: 'agent:worktree',
    });
    expect(await paneIds(suite.herdr)).toContain(other);
  });
});

describe('close refuses before any change', () => {
  /** The tree byte for byte, except FETCH_HEAD: close reads freshly fetched remote refs (spec). */
  async function tree(): Promise<Record<string, string>> {
    const { '.git/FETCH_HEAD': _fetched, ...rest } = await repoSnapshot(repo);
    return rest;
  }

  async function refused(pane: string, message: RegExp): Promise<void> {
    const before = await tree();
    const refs = await repo.git(['for-each-ref']);
    const panes = await paneIds(suite.herdr);
    const itemsBefore = await items(suite);
    const result = await close(pane);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(await tree()).toEqual(before);
    expect(await repo.git(['for-each-ref'])).toBe(refs);
    expect(await paneIds(suite.herdr)).toEqual(panes);
    expect(await items(suite)).toEqual(itemsBefore);
  }

  it('a missing pane', async () => {
    await refused('w99:p9', /^dogsled: close: no pane "w99:p9" in Herdr\n$/);
  });

  it("the caller's own pane", async () => {
    await refused(suite.caller.pane, /is your own pane/);
  });

  it('a busy target: an agent at work', async () => {
    const { pane } = await child('busy', 'feat/busy');
    await ok(suite.herdr, '_fake.agent.set_status', { target: pane, status: 'working' });
    await refused(pane, /^dogsled: close: pane \S+ is busy: it runs claude, which is working\n$/);
  });

  it('a dirty worktree', async () => {
    const { pane, path } = await child('dirty', 'feat/dirty');
    await writeFile(join(path, 'a.txt'), 'changed\n');
    await refused(pane, /has uncommitted changes/);
  });

  it('local-only work (a commit nothing else holds), saying what would let it close', async () => {
    const { pane, path } = await child('local', 'feat/local');
    await repo.commit({ 'new.txt': 'mine\n' }, 'local work', path);
    await refused(
      pane,
      /keeps work: local work: 1 commit not in the default branch or on a remote branch; push feat\/local \(git push origin feat\/local\) or land it in the default branch, then close again\n$/,
    );
  });

  it('a worktree with a lock that is not dogsled', async () => {
    const path = await repo.worktree('feat/theirs', { lock: 'keep out' });
    const pane = (await ok(suite.herdr, 'workspace.create', { cwd: path })).root_pane.pane_id;
    await refused(pane, /locked with reason "keep out", not by dogsled/);
  });

  it('a shell running a command in the worktree', async () => {
    const { pane, path } = await child('withshell', 'feat/shell');
    const other = (await ok(suite.herdr, 'tab.create', { cwd: path })).root_pane.pane_id;
    await ok(suite.herdr, 'pane.send_input', { pane_id: other, text: 'sleep 30\n' });
    await waitFor('the shell to run sleep', async () => {
      const info = (await ok(suite.herdr, 'pane.process_info', { pane_id: other })).process_info;
      return info.foreground_processes.some((p: Json) => p.name === 'sleep');
    });
    await refused(pane, /is in use: pane \S+ runs sleep/);
  });
});
