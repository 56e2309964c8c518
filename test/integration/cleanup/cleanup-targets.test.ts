import { execFile } from 'node:child_process';
import { lstat, mkdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { findTargets, removeTarget } from '../../../service/cleanup/build-targets.js';
import { CACHEDIR_SIGNATURE } from '../../../service/core/cleanup/target-rule.js';
import { fixtureTree, tempDir, writeTree } from '../../helpers/tree.js';

const run = promisify(execFile);
const TAG = `${CACHEDIR_SIGNATURE}\n# This file is a cache directory tag created by cargo.\n`;

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

describe('findTargets', () => {
  test('finds tagged directories directly under main checkouts and linked worktrees', async () => {
    const root = await fixtureTree({
      'repo/target/CACHEDIR.TAG': TAG,
      'repo/target/debug/app': 'x'.repeat(10_000),
      'repo/.worktrees/feat-a/target/CACHEDIR.TAG': TAG,
      'repo/src/main.rs': 'fn main() {}',
      'repo/node_modules/.cache/CACHEDIR.TAG': TAG,
      'repo/docs/notes.txt': 'not a target',
    });
    const main = join(root, 'repo');
    const linked = join(main, '.worktrees', 'feat-a');
    const targets = await findTargets([
      { path: main, kind: 'main' },
      { path: linked, kind: 'linked' },
    ]);
    expect(targets.map(({ path, checkout }) => ({ path, checkout }))).toEqual([
      { path: join(main, 'target'), checkout: main },
      { path: join(linked, 'target'), checkout: linked },
    ]);
    const [big] = targets;
    expect(big?.bytes).toBeGreaterThanOrEqual(10_000);
    expect(big?.partial).toBe(false);
  });

  test('ignores a tag without the signature at its start, and a tag that is a symlink', async () => {
    const root = await fixtureTree({
      'repo/a/CACHEDIR.TAG': `# comment\n${CACHEDIR_SIGNATURE}\n`,
      'repo/b/CACHEDIR.TAG': 'Signature: 0000',
      'elsewhere/CACHEDIR.TAG': TAG,
    });
    await mkdir(join(root, 'repo', 'c'));
    await symlink(join(root, 'elsewhere', 'CACHEDIR.TAG'), join(root, 'repo', 'c', 'CACHEDIR.TAG'));
    expect(await findTargets([{ path: join(root, 'repo'), kind: 'main' }])).toEqual([]);
  });

  test('never follows a symlinked directory, neither as a target nor while sizing one', async () => {
    const root = await fixtureTree({
      'outside/CACHEDIR.TAG': TAG,
      'outside/huge.bin': 'y'.repeat(200_000),
      'repo/target/CACHEDIR.TAG': TAG,
    });
    const main = join(root, 'repo');
    await symlink(join(root, 'outside'), join(main, 'linked-target'));
    await symlink(join(root, 'outside'), join(main, 'target', 'escape'));
    const targets = await findTargets([{ path: main, kind: 'main' }]);
    expect(targets.map((target) => target.path)).toEqual([join(main, 'target')]);
    expect(targets[0]?.bytes).toBeLessThan(200_000);
  });

  test('a nested linked worktree is never a target of the main checkout', async () => {
    const root = await fixtureTree({ 'repo/wt/CACHEDIR.TAG': TAG });
    const main = join(root, 'repo');
    const targets = await findTargets([
      { path: main, kind: 'main' },
      { path: join(main, 'wt'), kind: 'linked' },
    ]);
    expect(targets).toEqual([]);
  });

  test('a checkout that does not exist has no targets', async () => {
    expect(await findTargets([{ path: join(await tempDir(), 'gone'), kind: 'linked' }])).toEqual([]);
  });

  test('many checkouts, listed at once, some gone, a file or a FIFO: each target in checkout order', async () => {
    const tree: Record<string, string> = { 'not-a-dir': 'file' };
    for (let i = 0; i < 40; i++) tree[`wt${i}/target/CACHEDIR.TAG`] = TAG;
    const root = await fixtureTree(tree);
    await run('mkfifo', [join(root, 'fifo')]);
    const paths = Array.from({ length: 40 }, (_, i) => join(root, `wt${i}`));
    // Unreadable checkouts among readable ones: a gone one, a file and a FIFO (never opened to block).
    const checkouts = paths.flatMap((path, i) =>
      i % 10 === 3
        ? [
            { path: join(root, `gone${i}`), kind: 'linked' as const },
            { path: join(root, 'not-a-dir'), kind: 'linked' as const },
            { path: join(root, 'fifo'), kind: 'linked' as const },
            { path, kind: 'linked' as const },
          ]
        : [{ path, kind: 'linked' as const }],
    );
    const targets = await findTargets(checkouts);
    expect(targets.map(({ path, checkout }) => ({ path, checkout }))).toEqual(
      paths.map((path) => ({ path: join(path, 'target'), checkout: path })),
    );
  });

  test('a size walk over its bound reports a lower bound', async () => {
    const tree: Record<string, string> = { 'repo/target/CACHEDIR.TAG': TAG };
    for (let i = 0; i < 30; i++) tree[`repo/target/f${i}`] = 'z';
    const root = await fixtureTree(tree);
    const [target] = await findTargets([{ path: join(root, 'repo'), kind: 'main' }], { maxEntries: 10 });
    expect(target?.partial).toBe(true);
  });
});

describe('removeTarget', () => {
  async function target() {
    const root = await fixtureTree({ 'repo/target/CACHEDIR.TAG': TAG, 'repo/target/debug/app': 'bin' });
    return { root, path: join(root, 'repo', 'target'), bytes: 4096 };
  }

  test('removes a target whose tag still holds', async () => {
    const t = await target();
    expect(await removeTarget(t)).toEqual({ kind: 'removed', path: t.path, bytes: 4096 });
    expect(await exists(t.path)).toBe(false);
    expect(await exists(join(t.root, 'repo'))).toBe(true);
  });

  test('skips a directory whose tag was removed or rewritten since the plan', async () => {
    const t = await target();
    await writeFile(join(t.path, 'CACHEDIR.TAG'), 'not a tag any more');
    expect(await removeTarget(t)).toEqual({
      kind: 'skipped',
      path: t.path,
      reason: 'CACHEDIR.TAG no longer starts with the signature',
    });
    await rm(join(t.path, 'CACHEDIR.TAG'));
    expect(await removeTarget(t)).toEqual({ kind: 'skipped', path: t.path, reason: 'CACHEDIR.TAG is gone' });
    expect(await exists(join(t.path, 'debug', 'app'))).toBe(true);
  });

  test('skips a target replaced by a symlink, leaving both the link and what it points to', async () => {
    const t = await target();
    const elsewhere = await writeTree(await tempDir(), { 'CACHEDIR.TAG': TAG, keep: 'me' });
    await rm(t.path, { recursive: true });
    await symlink(elsewhere, t.path);
    expect(await removeTarget(t)).toEqual({ kind: 'skipped', path: t.path, reason: 'now a symlink' });
    expect((await stat(join(elsewhere, 'keep'))).isFile()).toBe(true);
  });

  test('removes symlinks inside a target without following them', async () => {
    const t = await target();
    const elsewhere = await writeTree(await tempDir(), { keep: 'me' });
    await symlink(elsewhere, join(t.path, 'link'));
    expect((await removeTarget(t)).kind).toBe('removed');
    expect(await exists(join(elsewhere, 'keep'))).toBe(true);
  });

  test('a target that something else removed is gone, not a failure', async () => {
    const t = await target();
    await rm(t.path, { recursive: true });
    expect(await removeTarget(t)).toEqual({ kind: 'gone', path: t.path });
  });
});
