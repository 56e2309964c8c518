import { describe, expect, it } from 'vitest';
import type { WorktreeVerdict } from '../../../../service/core/cleanup/loss-rule.js';
import {
  type PlanEntry,
  recheckBranch,
  recheckWorktree,
  selectPlan,
} from '../../../../service/core/cleanup/prune-plan.js';

const worktree: Extract<PlanEntry, { kind: 'worktree' }> = {
  kind: 'worktree',
  repository: '/r',
  common_dir: '/r/.git',
  path: '/r/.worktrees/x',
  branch: 'x',
  head: 'aaaaaaaaaaaa',
  reason: 'clean; merged into origin/main',
};
const removable: WorktreeVerdict = {
  kind: 'removable',
  reason: 'clean',
  proof: {
    checkout: 'clean',
    restore: [],
    ignored: 0,
    commits: { kind: 'ancestor', ref: 'refs/heads/main' },
    unlock: false,
    deleteBranch: true,
  },
};
const listed = [
  { path: '/r', branch: 'main' },
  { path: '/r/.worktrees/x', branch: 'x' },
];
const found = { branch: 'x', head: 'aaaaaaaaaaaa', exists: true, verdict: removable };

describe('selecting the plan', () => {
  const entries: PlanEntry[] = [
    { kind: 'job', id: 'j1', path: 'j1', reason: 'r' },
    { kind: 'branch', repository: '/r', common_dir: '/r/.git', branch: 'b', head: 'h', reason: 'r' },
    worktree,
    { kind: 'repository-record', path: '/gone', reason: 'r' },
  ];

  it('takes every category when none is named, worktrees first', () => {
    expect(selectPlan(entries, []).map((entry) => entry.kind)).toEqual([
      'worktree',
      'branch',
      'repository-record',
      'job',
    ]);
  });

  it('closes whole workspaces, then single panes, right after the worktrees', () => {
    const panes: PlanEntry[] = [
      ...entries,
      {
        kind: 'pane',
        pane: 'w1:p2',
        terminal_id: 't2',
        workspace: 'w1',
        cwd: null,
        program: 'sh',
        reason: 'r',
      },
      { kind: 'workspace', workspace: 'w2', label: 'x', cwd: null, panes: [], reason: 'r' },
    ];
    expect(selectPlan(panes, []).map((entry) => entry.kind)).toEqual([
      'worktree',
      'workspace',
      'pane',
      'branch',
      'repository-record',
      'job',
    ]);
    expect(selectPlan(panes, ['panes']).map((entry) => entry.kind)).toEqual(['workspace', 'pane']);
  });

  it('takes only the named categories', () => {
    expect(selectPlan(entries, ['jobs', 'repositories']).map((entry) => entry.kind)).toEqual([
      'repository-record',
      'job',
    ]);
  });
});

describe('rechecking a worktree', () => {
  it('proceeds when nothing changed', () => {
    expect(recheckWorktree(worktree, { common_dir: '/r/.git', listed, found })).toEqual({
      action: 'proceed',
    });
  });

  it('fails on a changed repository, branch or path', () => {
    expect(recheckWorktree(worktree, { common_dir: '/other/.git', listed, found }).action).toBe('fail');
    expect(
      recheckWorktree(worktree, { common_dir: '/r/.git', listed, found: { ...found, branch: 'y' } }),
    ).toEqual({
      action: 'fail',
      reason: 'branch changed: x is now y',
    });
    const moved = [
      { path: '/r', branch: 'main' },
      { path: '/r/.worktrees/moved', branch: 'x' },
    ];
    expect(recheckWorktree(worktree, { common_dir: '/r/.git', listed: moved })).toEqual({
      action: 'fail',
      reason: 'path changed: the worktree of x is now /r/.worktrees/moved',
    });
  });

  it('skips live work: a moved HEAD, or a verdict that is no longer removable', () => {
    expect(
      recheckWorktree(worktree, { common_dir: '/r/.git', listed, found: { ...found, head: 'bbbbbbbbbbbb' } }),
    ).toEqual({
      action: 'skip',
      reason: 'HEAD moved after the plan (aaaaaaaaaa → bbbbbbbbbb)',
    });
    const dirty: WorktreeVerdict = { kind: 'kept', reason: 'dirty: 1 changed path (a)', holds: [] };
    expect(
      recheckWorktree(worktree, { common_dir: '/r/.git', listed, found: { ...found, verdict: dirty } }),
    ).toEqual({
      action: 'skip',
      reason: 'dirty: 1 changed path (a)',
    });
  });

  it('fails when the checkout can no longer be read: unreadable evidence', () => {
    const refused: WorktreeVerdict = {
      kind: 'kept',
      reason: 'cannot read the checkout: git status exited 128',
      holds: [],
    };
    expect(
      recheckWorktree(worktree, { common_dir: '/r/.git', listed, found: { ...found, verdict: refused } })
        .action,
    ).toBe('fail');
  });

  it("fails when the repository's dogsled.toml stopped loading: an error to fix, not live work", () => {
    const blocked: WorktreeVerdict = {
      kind: 'kept',
      reason: 'its teardown cannot run: repository config /r/dogsled.toml: unknown key "worktree.x"',
      holds: [],
    };
    expect(
      recheckWorktree(worktree, { common_dir: '/r/.git', listed, found: { ...found, verdict: blocked } }),
    ).toEqual({ action: 'fail', reason: blocked.reason });
  });

  it('something else removed it: gone when the path is absent, refused while its directory remains', () => {
    const without = [{ path: '/r', branch: 'main' }];
    expect(recheckWorktree(worktree, { common_dir: '/r/.git', listed: without })).toEqual({ action: 'gone' });
    const unlinked: WorktreeVerdict = {
      kind: 'unlinked',
      reason: 'worktree unregistered by git; directory remains: /r/.worktrees/x',
      hold: { kind: 'unlinked', reason: 'u' },
    };
    expect(
      recheckWorktree(worktree, {
        common_dir: '/r/.git',
        listed: without,
        found: { ...found, verdict: unlinked },
      }),
    ).toEqual({
      action: 'skip',
      reason: 'worktree unregistered by git; directory remains: /r/.worktrees/x',
    });
  });
});

describe('rechecking a branch', () => {
  const branch: Extract<PlanEntry, { kind: 'branch' }> = {
    kind: 'branch',
    repository: '/r',
    common_dir: '/r/.git',
    branch: 'b',
    head: 'aaaaaaaaaaaa',
    reason: 'r',
  };
  const ok = {
    removable: true as const,
    reason: 'r',
    proof: { kind: 'held' as const, ref: 'refs/remotes/origin/b' },
  };

  it('proceeds at the planned commit, skips a moved tip, fails when the branch is gone', () => {
    expect(
      recheckBranch(branch, { common_dir: '/r/.git', found: { sha: 'aaaaaaaaaaaa', verdict: ok } }),
    ).toEqual({ action: 'proceed' });
    expect(
      recheckBranch(branch, { common_dir: '/r/.git', found: { sha: 'cccccccccccc', verdict: ok } }).action,
    ).toBe('skip');
    expect(recheckBranch(branch, { common_dir: '/r/.git' })).toEqual({
      action: 'fail',
      reason: 'branch b no longer exists',
    });
  });

  it('skips a branch that is no longer landed', () => {
    const kept = { removable: false as const, reason: 'local work: 1 commit' };
    expect(
      recheckBranch(branch, { common_dir: '/r/.git', found: { sha: 'aaaaaaaaaaaa', verdict: kept } }),
    ).toEqual({
      action: 'skip',
      reason: 'local work: 1 commit',
    });
  });
});
