// `--branch` worktrees made and reused for real: git worktree add from the right start, locked
// agent:worktree, registered, set up by the repository's dogsled.toml (a failure removes what was
// made), opened in the fake Herdr without focus, with the anchor workspace recorded.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readAnchor } from '../../../service/worktrees/anchor.js';
import type { FakeHerdr } from '../../fakes/herdr/harness.js';
import { Repo, refSha } from '../../helpers/git-scenarios.js';
import {
  ensure,
  type Json,
  registries,
  workspaces,
  worktreeList,
  worktreeSuite,
} from './worktree-fixtures.js';

const suite = worktreeSuite('dogsled-branch-wt-');
let dir: string;
let herdr: FakeHerdr;
let repo: Repo;

beforeEach(() => {
  ({ dir, herdr, repo } = suite);
});

const commonDir = () => join(repo.main, '.git');

async function setupConfig(lines: string[]): Promise<void> {
  const toml = `[worktree]\nsetup = [${lines.map((line) => JSON.stringify(line)).join(', ')}]\n`;
  await writeFile(join(repo.main, 'dogsled.toml'), toml);
  await repo.commit({}, 'config');
}

describe('a new branch', () => {
  it('gets <dir>/<branch with / as -> from the remote default, locked agent:worktree, registered and opened in Herdr', async () => {
    const result = await ensure(repo, herdr, 'feat/x');
    const path = join(repo.main, '.worktrees', 'feat-x');
    expect(result).toMatchObject({ path, branch: 'feat/x', repository: repo.main, created: true });
    expect(await refSha(repo, 'refs/heads/feat/x')).toBe(await repo.sha('main'));
    expect(await worktreeList(repo)).toContainEqual({ path, branch: 'feat/x', locked: 'agent:worktree' });

    const shown = (await workspaces(herdr)).find((ws: Json) => ws.workspace_id === result.workspace);
    expect(shown).toMatchObject({
      focused: false,
      worktree: { checkout_path: path, is_linked_worktree: true },
    });
    const pane = (await herdr.call('pane.get', { pane_id: result.pane })).result.pane;
    expect(pane).toMatchObject({ workspace_id: result.workspace, cwd: path });

    // No workspace showed the main checkout, so Herdr opened one as the anchor; it is recorded.
    const anchor = (await workspaces(herdr)).find((ws: Json) => ws.worktree?.checkout_path === repo.main);
    expect(result.anchor).toBe(anchor.workspace_id);
    expect(await readAnchor(commonDir())).toBe(result.anchor);
    expect((await readFile(join(commonDir(), 'agent-worktree-anchor'), 'utf8')).trim()).toBe(result.anchor);

    const { repositories, worktrees } = await registries(repo);
    expect(repositories.repositories).toEqual([expect.objectContaining({ path: repo.main })]);
    expect(worktrees.worktrees).toEqual([
      expect.objectContaining({
        path,
        repository: repo.main,
        branch: 'feat/x',
        anchor_workspace: result.anchor,
      }),
    ]);
  });

  it('records no anchor when a workspace already showed the main checkout', async () => {
    const main = (await herdr.call('workspace.create', { cwd: repo.main })).result.workspace.workspace_id;
    const result = await ensure(repo, herdr, 'feat/y');
    expect(result.anchor).toBeNull();
    expect(result.workspace).not.toBe(main);
    expect(existsSync(join(commonDir(), 'agent-worktree-anchor'))).toBe(false);
    expect((await registries(repo)).worktrees.worktrees[0].anchor_workspace).toBeUndefined();
  });

  it('starts from --base when given, and from origin/<branch> when only the remote has it', async () => {
    const side = await repo.branch('side', [{ 'a.txt': 'side\n' }]);
    const based = await ensure(repo, herdr, 'feat/based', 'side');
    expect(await refSha(repo, 'refs/heads/feat/based')).toBe(side[0]);
    expect(based.created).toBe(true);

    const remoteOnly = await repo.branch('feat/remote', [{ 'b.txt': 'remote\n' }]);
    await repo.push('feat/remote');
    await repo.git(['branch', '-D', 'feat/remote']);
    await ensure(repo, herdr, 'feat/remote');
    expect(await refSha(repo, 'refs/heads/feat/remote')).toBe(remoteOnly[0]);
  });

  it('checks out an existing local branch without moving it', async () => {
    const [tip] = await repo.branch('feat/old', [{ 'c.txt': 'old\n' }]);
    const result = await ensure(repo, herdr, 'feat/old');
    expect(result.created).toBe(true);
    expect(await refSha(repo, 'refs/heads/feat/old')).toBe(tip);
    expect(await readFile(join(result.path, 'c.txt'), 'utf8')).toBe('old\n');
  });
});

describe('an existing worktree of the branch', () => {
  it('is reused without setup, in a new Herdr workspace', async () => {
    await setupConfig(['echo ran >> {main}/setup-runs']);
    const first = await ensure(repo, herdr, 'feat/again');
    expect(await readFile(join(repo.main, 'setup-runs'), 'utf8')).toBe('ran\n');
    await herdr.call('workspace.close', { workspace_id: first.workspace });

    const second = await ensure(repo, herdr, 'feat/again');
    expect(second).toMatchObject({ path: first.path, created: false, anchor: null });
    expect(second.workspace).not.toBe(first.workspace);
    expect(await readFile(join(repo.main, 'setup-runs'), 'utf8')).toBe('ran\n');
    expect((await registries(repo)).worktrees.worktrees).toHaveLength(1);
  });

  it('that is someone else’s unlocked checkout is reused as it is, never locked or registered', async () => {
    const path = await repo.worktree('mine');
    const result = await ensure(repo, herdr, 'mine');
    expect(result).toMatchObject({ path, created: false });
    expect(await worktreeList(repo)).toContainEqual({ path, branch: 'mine', locked: null });
    expect((await registries(repo)).worktrees).toBeNull();
  });
});

describe('setup', () => {
  it('runs each command in the new worktree with {main}, {path} and {branch} as single shell words', async () => {
    const hostile = `feat/it's"q"$(touch\${IFS}pwned);x&y|z`;
    await setupConfig(['printf "%s\\n" {branch} {path} {main} > setup-out', 'pwd >> setup-out']);
    const result = await ensure(repo, herdr, hostile);
    const path = join(repo.main, '.worktrees', hostile.replaceAll('/', '-'));
    expect(result.path).toBe(path);
    expect(await readFile(join(path, 'setup-out'), 'utf8')).toBe(
      `${hostile}\n${path}\n${repo.main}\n${path}\n`,
    );
    expect(existsSync(join(path, 'pwned'))).toBe(false);
    expect(await worktreeList(repo)).toContainEqual({ path, branch: hostile, locked: 'agent:worktree' });
  });

  it('that fails removes the new worktree and the branch it made, and opens nothing in Herdr', async () => {
    await setupConfig([
      'echo partial > made.txt',
      'echo "\u001b[31mboom\u001b[0m" >&2; exit 3',
      'echo never > {main}/never',
    ]);
    const before = (await workspaces(herdr)).length;
    const error = await ensure(repo, herdr, 'feat/fails').catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const [first, ...rest] = (error as Error).message.split('\n');
    expect(first).toBe(
      '--branch feat/fails: setup command failed (exit 3): echo "boom" >&2; exit 3; removed the new worktree and branch feat/fails',
    );
    expect(rest).toEqual(['  boom']);
    expect(existsSync(join(repo.main, '.worktrees', 'feat-fails'))).toBe(false);
    expect(existsSync(join(repo.main, 'never'))).toBe(false);
    expect(await refSha(repo, 'refs/heads/feat/fails')).toBeNull();
    expect((await worktreeList(repo)).map((w) => w.path)).toEqual([repo.main]);
    expect((await registries(repo)).worktrees.worktrees).toEqual([]);
    expect((await workspaces(herdr)).length).toBe(before);
  });

  it('that fails on an existing branch removes the worktree and keeps the branch where it was', async () => {
    const [tip] = await repo.branch('feat/kept', [{ 'a.txt': 'kept\n' }]);
    await setupConfig(['exit 7']);
    await expect(ensure(repo, herdr, 'feat/kept')).rejects.toThrow(
      /^--branch feat\/kept: setup command failed \(exit 7\): exit 7; removed the new worktree; branch feat\/kept stays as it was$/,
    );
    expect(await refSha(repo, 'refs/heads/feat/kept')).toBe(tip);
    expect(existsSync(join(repo.main, '.worktrees', 'feat-kept'))).toBe(false);
  });
});

describe('two callers at once', () => {
  it('make one worktree: the second finds it open in Herdr and is refused', async () => {
    const results = await Promise.allSettled([
      ensure(repo, herdr, 'feat/race'),
      ensure(repo, herdr, 'feat/race'),
    ]);
    const made = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(made).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.reason.message).toMatch(
      /^--branch feat\/race: its worktree .* is already open in Herdr workspace w/,
    );
    expect((await worktreeList(repo)).filter((w) => w.branch === 'feat/race')).toHaveLength(1);
  });
});

describe('hostile paths', () => {
  it('a repository under a directory with quotes, spaces, $() and ; works, and setup sees it as one word', async () => {
    const hostileRoot = join(dir, `it's "a" $(touch pwned); dir`);
    await rename(repo.root, hostileRoot);
    const config = join(hostileRoot, 'main', '.git', 'config');
    await writeFile(config, (await readFile(config, 'utf8')).replaceAll(repo.root, hostileRoot));
    repo = new Repo(hostileRoot);
    await setupConfig(['printf "%s\\n" {main} {path} > setup-out']);
    const result = await ensure(repo, herdr, 'feat/odd');
    const path = join(repo.main, '.worktrees', 'feat-odd');
    expect(result).toMatchObject({ path, created: true });
    expect(await readFile(join(path, 'setup-out'), 'utf8')).toBe(`${repo.main}\n${path}\n`);
    const pane = (await herdr.call('pane.get', { pane_id: result.pane })).result.pane;
    expect(pane.cwd).toBe(path);
    expect(existsSync(join(path, 'pwned'))).toBe(false);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
  });
});

describe('the anchor file', () => {
  it('that is a FIFO or holds something else reads as none, never blocks, and is replaced on the next anchor', async () => {
    const file = join(commonDir(), 'agent-worktree-anchor');
    execFileSync('mkfifo', [file]);
    expect(await readAnchor(commonDir())).toBeNull();
    const result = await ensure(repo, herdr, 'feat/anchor');
    expect(result.anchor).not.toBeNull();
    expect(await readAnchor(commonDir())).toBe(result.anchor);
    await writeFile(file, '\u001b]0;x\u0007 $(id)\n');
    expect(await readAnchor(commonDir())).toBeNull();
  });
});
