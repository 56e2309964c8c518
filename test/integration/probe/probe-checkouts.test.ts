import { execFileSync } from 'node:child_process';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkoutFingerprint,
  findCheckoutRoot,
  readCheckoutFacts,
  readDirty,
} from '../../../service/git/checkout-facts.js';
import { CheckoutCache } from '../../../service/probe/checkout-cache.js';
import { tempDir } from '../../helpers/tree.js';

/** The environment git starts from: this test process's own. */
const gitEnv = { env: process.env };

let dir: string;
let repo: string;
let worktree: string;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd });
}

beforeEach(async () => {
  dir = await tempDir('dogsled-checkouts-');
  repo = join(dir, 'repo');
  worktree = join(dir, 'wt');
  await mkdir(join(repo, 'src', 'deep'), { recursive: true });
  git(repo, '-c', 'init.defaultBranch=main', 'init', '-q');
  await writeFile(join(repo, 'src', 'a.txt'), 'a\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'a');
  git(repo, 'worktree', 'add', '-q', '-b', 'feat/y', worktree);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('checkout facts for agent panes', () => {
  it('finds the checkout of a directory by its nearest .git, a linked worktree included', async () => {
    expect(await findCheckoutRoot(join(repo, 'src', 'deep'))).toBe(repo);
    expect(await findCheckoutRoot(worktree)).toBe(worktree);
    expect(await findCheckoutRoot(dir)).toBeNull();
  });

  it('reads branch, commits ahead of the default branch and dirtiness', async () => {
    await writeFile(join(worktree, 'b.txt'), 'b\n');
    git(worktree, 'add', '.');
    git(worktree, 'commit', '-qm', 'b');
    expect(await readCheckoutFacts(worktree, gitEnv)).toMatchObject({
      branch: 'feat/y',
      ahead: 1,
      dirty: false,
    });
    await writeFile(join(worktree, 'c.txt'), 'untracked\n');
    expect((await readCheckoutFacts(worktree, gitEnv)).dirty).toBe(true);
    expect(await readCheckoutFacts(repo, gitEnv)).toMatchObject({
      branch: 'main',
      ahead: 0,
      defaultBranch: 'main',
    });
  });

  it('changes its fingerprint on a commit but not on a working-file edit', async () => {
    const before = await checkoutFingerprint(worktree);
    await writeFile(join(worktree, 'edit.txt'), 'x\n');
    expect(await checkoutFingerprint(worktree)).toBe(before);
    git(worktree, 'add', '.');
    git(worktree, 'commit', '-qm', 'edit');
    expect(await checkoutFingerprint(worktree)).not.toBe(before);
  });

  it('re-reads a checkout when its fingerprint changes, refreshes only dirtiness on a timer', async () => {
    let now = 0;
    let reads = 0;
    let refreshes = 0;
    let print = 'one';
    const cache = new CheckoutCache({
      fingerprint: async () => print,
      read: async () => ({ read: ++reads, refreshed: 0 }),
      refresh: async (_root, previous) => ({ ...previous, refreshed: ++refreshes }),
      now: () => now,
      refreshAfterMs: 1000,
      rereadAfterMs: 10_000,
    });
    expect(await cache.get('/r')).toEqual({ read: 1, refreshed: 0 });
    expect(await cache.get('/r')).toEqual({ read: 1, refreshed: 0 });
    now = 1500;
    expect(await cache.get('/r')).toEqual({ read: 1, refreshed: 1 });
    print = 'two';
    expect(await cache.get('/r')).toEqual({ read: 2, refreshed: 0 });
    now = 20_000;
    expect(await cache.get('/r')).toEqual({ read: 3, refreshed: 0 });
    // Agents whose transcripts have not changed since the last look made no new edits there.
    now = 22_000;
    expect(await cache.get('/r', 19_000)).toEqual({ read: 3, refreshed: 0 });
    expect(await cache.get('/r', 21_000)).toEqual({ read: 3, refreshed: 2 });
  });

  it('changes the fingerprint when the default branch moves, and reads dirtiness alone', async () => {
    const before = await checkoutFingerprint(worktree);
    await writeFile(join(repo, 'src', 'main.txt'), 'm\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'main moves');
    expect(await checkoutFingerprint(worktree)).not.toBe(before);
    expect(await readDirty(worktree, gitEnv)).toBe(false);
    await writeFile(join(worktree, 'new.txt'), 'n\n');
    expect(await readDirty(worktree, gitEnv)).toBe(true);
  });

  it('is dirty when only a stale untracked cache would say clean', async () => {
    git(worktree, 'config', 'core.untrackedCache', 'true');
    git(worktree, 'config', 'core.checkStat', 'minimal');
    git(worktree, 'config', 'core.trustctime', 'false');
    // An hour old, so the cache trusts the directory's stat (a recent one would be racy).
    const src = join(worktree, 'src');
    const past = new Date(Date.now() - 3_600_000);
    await utimes(src, past, past);
    // Git writes the cache into the index on a status that may take the index lock.
    git(worktree, 'status', '--porcelain');
    git(worktree, 'status', '--porcelain');
    await writeFile(join(src, 'new.txt'), 'n\n');
    // The directory looks untouched to the cache: same mtime, and its ctime is not trusted.
    await utimes(src, past, past);
    const plain = execFileSync('git', ['status', '--porcelain', '--untracked-files=normal'], {
      cwd: worktree,
    });
    expect(plain.toString()).toBe('');
    expect(await readDirty(worktree, gitEnv)).toBe(true);
    expect((await readCheckoutFacts(worktree, gitEnv)).dirty).toBe(true);
  });

  it('is dirty when a submodule has new content, whatever its ignore settings say', async () => {
    const library = join(dir, 'library');
    await mkdir(library);
    git(library, '-c', 'init.defaultBranch=main', 'init', '-q');
    await writeFile(join(library, 'lib.txt'), 'l\n');
    git(library, 'add', '.');
    git(library, 'commit', '-qm', 'l');
    git(worktree, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib');
    git(worktree, 'commit', '-qm', 'submodule');
    git(worktree, 'config', 'diff.ignoreSubmodules', 'all');
    git(worktree, 'config', 'submodule.lib.ignore', 'all');
    expect(await readDirty(worktree, gitEnv)).toBe(false);
    await writeFile(join(worktree, 'lib', 'scratch.txt'), 's\n');
    const plain = execFileSync('git', ['status', '--porcelain'], { cwd: worktree });
    expect(plain.toString()).toBe('');
    expect(await readDirty(worktree, gitEnv)).toBe(true);
  });

  it('is dirty for an edit behind the assume-unchanged bit', async () => {
    git(worktree, 'update-index', '--assume-unchanged', 'src/a.txt');
    expect(await readDirty(worktree, gitEnv)).toBe(false);
    await writeFile(join(worktree, 'src', 'a.txt'), 'edited\n');
    expect(await readDirty(worktree, gitEnv)).toBe(true);
    expect((await readCheckoutFacts(worktree, gitEnv)).dirty).toBe(true);
  });
});
