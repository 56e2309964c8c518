// What a child's launch made here and leaves behind when it is refused before it began (its launch
// record ended meanwhile by the admission's owner on another host): the `--branch` worktree it
// created and the checkout it cloned go, each only when it holds no work by the loss rule and
// nothing else uses it, checked under the repository's lock. Whatever existed before the launch, and
// any doubtful case, stays as it is; each function says in one line why something stayed.

import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { repositoryLockPath } from '../cleanup/locks.js';
import { realOrSame } from '../cleanup/panes/pane-facts.js';
import { contains } from '../core/cleanup/target-rule.js';
import { messageOf } from '../core/common/errors.js';
import { readDirty } from '../git/checkout-facts.js';
import { repositoryAt } from '../git/repository.js';
import { type GitIO, runGit, succeeded } from '../git/run-git.js';
import { withLock } from '../state/engine/lock.js';
import type { HostIO } from '../state/io.js';
import { listLaunchRecords } from '../state/records/launch-files.js';
import { readItems } from '../state/records/queue-items.js';
import type { TerminalPort } from '../terminal/port.js';
import type { BranchWorktree } from '../worktrees/branch-worktree.js';
import { closeChild } from './close-child.js';

/**
 * Removes a worktree the launch created, as `close` of its root pane would: the loss rule, its
 * teardown, its panes and workspace, its branch when the rule allows. Returns why it stayed, or null.
 */
export async function discardCreatedWorktree(
  io: HostIO & { port: TerminalPort },
  worktree: BranchWorktree,
): Promise<string | null> {
  if (!worktree.created) return null;
  try {
    const closed = await closeChild(io, { pane: worktree.pane, caller: null, mode: 'close' });
    return closed.worktree === null ? `worktree ${worktree.path} stays: its pane is not in it` : null;
  } catch (error) {
    return `worktree ${worktree.path} stays: ${messageOf(error)}`;
  }
}

/**
 * Removes a checkout the launch cloned (`launch` is its own id, whose records do not count) when it
 * holds nothing: no other worktree, no change or untracked file, no stash, no commit that only it
 * has, no open item or live launch in it. Returns why it stayed, or null.
 */
export async function discardFreshClone(io: HostIO, top: string, launch: string): Promise<string | null> {
  const git: GitIO = { env: io.env };
  try {
    const repository = await repositoryAt(top, git);
    if (repository.main === null || (await realOrSame(repository.main)) !== (await realOrSame(top)))
      return `checkout ${top} stays: it is not a checkout's top`;
    const lock = repositoryLockPath(io.paths, repository.commonDir);
    return await withLock(
      lock,
      async () => {
        const why = await workIn(io, top, launch, repository.worktrees.length);
        if (why !== null) return `checkout ${top} stays: ${why}`;
        await rm(top, { recursive: true, force: true });
        return null;
      },
      { timeoutMs: 30_000 },
    );
  } catch (error) {
    const why = messageOf(error).replace(`lock on ${basename(top)}:`, 'its lock:');
    return `checkout ${top} stays: ${why}`;
  }
}

async function workIn(io: HostIO, top: string, launch: string, worktrees: number): Promise<string | null> {
  const git: GitIO = { env: io.env };
  // Read again under the lock: a worktree added since the first look is someone's work.
  const now = await repositoryAt(top, git);
  if (Math.max(worktrees, now.worktrees.length) > 1) return 'it has other worktrees';
  if (await readDirty(top, git)) return 'it has changes or untracked files';
  const stash = await runGit(['stash', 'list'], { ...git, cwd: top });
  if (!succeeded(stash)) return 'its stash cannot be read';
  if (stash.stdout.length > 0) return 'it has stashed work';
  const unique = await runGit(['rev-list', '--max-count=1', 'HEAD', '--branches', '--not', '--remotes'], {
    ...git,
    cwd: top,
  });
  if (!succeeded(unique)) return 'its commits cannot be read';
  if (unique.stdout.length > 0) return 'it has commits no remote has';
  const real = await realOrSame(top);
  const inside = async (path: string | null | undefined) =>
    path != null && contains(real, await realOrSame(path));
  for (const item of (await readItems(io)).items) {
    if (item.closed_ms === null && ((await inside(item.cwd)) || (await inside(item.worktree))))
      return `item ${item.id} works in it`;
  }
  const launches = await listLaunchRecords(io.paths);
  for (const record of launches.records) {
    const live = record.state === 'preparing' || record.state === 'started' || record.state === 'unknown';
    if (record.id !== launch && live && ((await inside(record.cwd)) || (await inside(record.worktree))))
      return `launch ${record.id} works in it`;
  }
  return null;
}
