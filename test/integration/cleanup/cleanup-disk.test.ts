import { link, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DISK_FINDING_PATHS, diskFindings, treeSize } from '../../../service/cleanup/disk-findings.js';
import { fixtureTree } from '../../helpers/tree.js';

const KB = 1024;

describe('diskFindings', () => {
  test('reports nothing at or below 90% used, without sizing anything', async () => {
    expect(await diskFindings({ usedPercent: 90, candidates: ['/'] })).toBeNull();
    expect(await diskFindings({ usedPercent: 42.5, candidates: ['/'] })).toBeNull();
  });

  test('above 90% lists the given paths largest first, leaving out missing ones', async () => {
    const root = await fixtureTree({
      'state/jobs/j_a.log': 'x'.repeat(64 * KB),
      'repo/.worktrees/feat-a/big.bin': 'y'.repeat(512 * KB),
      'repo/target/small': 'z',
      'repo/not-listed.bin': 'w'.repeat(1024 * KB),
    });
    const finding = await diskFindings({
      usedPercent: 93.2,
      candidates: [
        join(root, 'state', 'jobs'),
        join(root, 'repo', '.worktrees'),
        join(root, 'repo', 'target'),
        join(root, 'missing'),
        join(root, 'state', 'jobs'),
      ],
    });
    expect(finding?.used_percent).toBe(93.2);
    expect(finding?.largest.map((entry) => entry.path)).toEqual([
      join(root, 'repo', '.worktrees'),
      join(root, 'state', 'jobs'),
      join(root, 'repo', 'target'),
    ]);
    expect(finding?.largest[0]?.bytes).toBeGreaterThanOrEqual(512 * KB);
    expect(finding?.largest[0]?.bytes).toBeLessThan(1024 * KB);
  });

  test(`lists at most ${DISK_FINDING_PATHS} paths`, async () => {
    const tree: Record<string, string> = {};
    for (let i = 0; i < 12; i++) tree[`d${i}/f`] = 'x'.repeat(i * KB);
    const root = await fixtureTree(tree);
    const finding = await diskFindings({
      usedPercent: 99,
      candidates: Object.keys(tree).map((file) => join(root, file.split('/')[0] ?? '')),
    });
    expect(finding?.largest).toHaveLength(DISK_FINDING_PATHS);
  });
});

describe('treeSize', () => {
  test('counts a hard-linked file once and never follows symlinks', async () => {
    const root = await fixtureTree({
      'tree/a.bin': 'a'.repeat(256 * KB),
      'outside/b.bin': 'b'.repeat(512 * KB),
    });
    const once = await treeSize(join(root, 'tree'));
    await link(join(root, 'tree', 'a.bin'), join(root, 'tree', 'a-copy.bin'));
    await symlink(join(root, 'outside'), join(root, 'tree', 'out'));
    const after = await treeSize(join(root, 'tree'));
    expect(once?.bytes).toBeGreaterThanOrEqual(256 * KB);
    expect(after?.bytes).toBeLessThan((once?.bytes ?? 0) + 64 * KB);
    expect(after?.partial).toBe(false);
  });

  test('a missing path has no size', async () => {
    expect(await treeSize(join(await fixtureTree({}), 'nope'))).toBeNull();
  });

  test('stops at its entry bound and says the size is partial', async () => {
    const tree: Record<string, string> = {};
    for (let i = 0; i < 50; i++) tree[`t/sub${i % 5}/f${i}`] = 'q';
    const root = await fixtureTree(tree);
    expect((await treeSize(join(root, 't'), { maxEntries: 20 }))?.partial).toBe(true);
    expect((await treeSize(join(root, 't'), { maxEntries: 1_000 }))?.partial).toBe(false);
  });
});
