import { describe, expect, it } from 'vitest';
import {
  branchVerdict,
  checkoutContent,
  commitsVerdict,
  describeProof,
  type WorktreeFacts,
  worktreeVerdict,
} from '../../../../service/core/cleanup/loss-rule.js';
import type { CheckoutStatus, StatusEntry } from '../../../../service/core/cleanup/loss-types.js';

const tracked = (path: string, xy: string, inHead = true): StatusEntry => ({
  path,
  xy,
  untracked: false,
  inHead,
  submodule: false,
});
const untracked = (path: string): StatusEntry => ({
  path,
  xy: '??',
  untracked: true,
  inHead: false,
  submodule: false,
});
const status = (
  entries: StatusEntry[],
  ignored = 0,
  more: Partial<CheckoutStatus> = {},
): { ok: true; status: CheckoutStatus } => ({
  ok: true,
  status: { head: 'h', branch: 'b', entries, ignored, hidden: [], inner: [], ...more },
});
const OK = { ok: true } as const;

describe('checkout content', () => {
  it('is clean when only ignored paths exist', () => {
    expect(checkoutContent(OK, status([], 2))).toEqual({
      kind: 'clean',
      ignored: 2,
    });
  });

  it('deleted tracked files alone, staged or not, are restored', () => {
    const content = checkoutContent(OK, status([tracked('b', '.D'), tracked('a', 'D.'), tracked('c', 'DD')]));
    expect(content).toEqual({ kind: 'deleted-only', restore: ['a', 'b', 'c'], ignored: 0 });
  });

  it('any other change, an untracked file, a conflict or a submodule is dirt, and every path counts', () => {
    expect(checkoutContent(OK, status([tracked('a', '.D'), tracked('m', '.M')]))).toEqual({
      kind: 'dirty',
      count: 2,
      paths: ['a', 'm'],
      hidden: [],
    });
    expect(checkoutContent(OK, status([untracked('n')]))).toMatchObject({ kind: 'dirty', count: 1 });
    expect(checkoutContent(OK, status([tracked('u', 'uUU', false)]))).toMatchObject({ kind: 'dirty' });
    expect(checkoutContent(OK, status([{ ...tracked('s', '.D'), submodule: true }]))).toMatchObject({
      kind: 'dirty',
    });
    // Staged as new and then deleted: never in HEAD, so not restorable.
    expect(checkoutContent(OK, status([tracked('new', 'AD', false)]))).toMatchObject({ kind: 'dirty' });
  });

  it('names at most ten dirty paths but counts them all', () => {
    const many = Array.from({ length: 12 }, (_, i) => untracked(`f${String(i).padStart(2, '0')}`));
    const content = checkoutContent(OK, status(many));
    expect(content).toMatchObject({ kind: 'dirty', count: 12 });
    expect(content.kind === 'dirty' && content.paths).toHaveLength(10);
  });

  it('a hidden edit is dirt even when status prints nothing, and is marked as hidden', () => {
    const hidden = [{ path: 'h', why: 'skip-worktree' as const }];
    expect(checkoutContent(OK, status([tracked('d', '.D')], 0, { hidden }))).toEqual({
      kind: 'dirty',
      count: 2,
      paths: ['d', 'h'],
      hidden,
    });
    // A flagged path that status also names (Git un-skipped it) counts once and is not "hidden".
    expect(checkoutContent(OK, status([tracked('h', '.M')], 0, { hidden }))).toEqual({
      kind: 'dirty',
      count: 1,
      paths: ['h'],
      hidden: [],
    });
  });

  it("another checkout's content inside keeps a clean checkout; its own dirt is told first", () => {
    const inner = [{ path: 'ignored/lib', kind: 'repository' as const }];
    expect(checkoutContent(OK, status([tracked('a', '.D')], 3, { inner }))).toEqual({ kind: 'inner', inner });
    expect(checkoutContent(OK, status([untracked('n')], 0, { inner }))).toMatchObject({ kind: 'dirty' });
  });

  it('refuses the check when identity or status cannot be confirmed: never clean', () => {
    expect(checkoutContent({ ok: false, reason: '.git is missing' }, status([]))).toEqual({
      kind: 'refused',
      reason: 'cannot check the checkout: .git is missing',
    });
    expect(checkoutContent(OK, { ok: false, reason: 'git status exited 128' })).toMatchObject({
      kind: 'refused',
    });
  });
});

describe('commits verdict', () => {
  const base = { defaultRefs: ['refs/remotes/origin/main', 'refs/heads/main'], unique: 0, integration: null };
  it('a default-branch holder is an ancestor proof, any other holder a held proof', () => {
    expect(commitsVerdict({ ...base, heldBy: 'refs/heads/main', fetchFailed: false })).toEqual({
      landed: true,
      proof: { kind: 'ancestor', ref: 'refs/heads/main' },
    });
    expect(commitsVerdict({ ...base, heldBy: 'refs/remotes/origin/x', fetchFailed: false })).toEqual({
      landed: true,
      proof: { kind: 'held', ref: 'refs/remotes/origin/x' },
    });
  });

  it('says why unheld commits are not landed, naming a failed fetch', () => {
    expect(commitsVerdict({ ...base, heldBy: null, unique: 3, fetchFailed: true })).toEqual({
      landed: false,
      unique: 3,
      reason: '3 commits not in the default branch (fetch failed, so remote branches do not count)',
    });
  });
});

describe('proof in words', () => {
  it('names the applying commits and the containing ref', () => {
    const run = { base: 'b', first: 'f', last: 'l', commits: 1, by: '0123456789abcdef' };
    const applied = {
      kind: 'applied' as const,
      ref: 'refs/remotes/origin/main',
      runs: [run, { ...run, by: 'fedcba9876543210' }],
    };
    expect(describeProof(applied)).toBe('applied as 2 runs by 0123456789, fedcba9876 on origin/main');
    expect(describeProof({ kind: 'contained', ref: 'refs/heads/top', by: { ...applied, runs: [run] } })).toBe(
      'contained in top, applied by 0123456789 on origin/main',
    );
  });
});

const facts = (over: Partial<WorktreeFacts> = {}): WorktreeFacts => ({
  repository: '/r',
  path: '/r/.worktrees/x',
  branch: 'x',
  head: 'h',
  listed: true,
  prunable: null,
  locked: null,
  exists: true,
  gitFile: true,
  registered: true,
  defaultBranch: 'main',
  content: { kind: 'clean', ignored: 0 },
  operation: null,
  commits: { landed: true, proof: { kind: 'ancestor', ref: 'refs/remotes/origin/main' } },
  holds: [],
  configProblem: null,
  ...over,
});

describe('worktree verdict', () => {
  it('a clean landed worktree is removable with its proof; an agent lock is lifted first', () => {
    expect(worktreeVerdict(facts({ locked: 'agent:worktree' }))).toEqual({
      kind: 'removable',
      reason: 'clean; merged into origin/main',
      proof: {
        checkout: 'clean',
        restore: [],
        ignored: 0,
        commits: { kind: 'ancestor', ref: 'refs/remotes/origin/main' },
        unlock: true,
        deleteBranch: true,
      },
    });
  });

  it('an absent path is a stale registration: only the record goes', () => {
    expect(worktreeVerdict(facts({ exists: false }))).toMatchObject({ kind: 'stale', removable: true });
    expect(worktreeVerdict(facts({ exists: false, registered: false }))).toMatchObject({
      kind: 'stale',
      removable: false,
    });
  });

  it('a directory Git no longer manages is an unlinked hold naming the reason and the path', () => {
    expect(worktreeVerdict(facts({ listed: false }))).toMatchObject({
      kind: 'unlinked',
      hold: { kind: 'unlinked', reason: 'worktree unregistered by git; directory remains: /r/.worktrees/x' },
    });
    expect(worktreeVerdict(facts({ prunable: 'gitdir file points to non-existent location' })).reason).toBe(
      'git calls it prunable (gitdir file points to non-existent location); directory remains: /r/.worktrees/x',
    );
    expect(worktreeVerdict(facts({ gitFile: false })).reason).toBe(
      'its .git file is gone; directory remains: /r/.worktrees/x',
    );
  });

  it('holds keep it, including a lock that is not dogsled', () => {
    expect(worktreeVerdict(facts({ locked: '' }))).toMatchObject({
      kind: 'kept',
      reason: 'held: worktree locked by git (no reason given)',
    });
    const pane = { kind: 'pane' as const, reason: 'pane w1:p2 is working here' };
    expect(worktreeVerdict(facts({ holds: [pane] }))).toMatchObject({ kind: 'kept', holds: [pane] });
  });

  it('a held dirty checkout is kept, not a landed_dirty finding', () => {
    const content = { kind: 'dirty' as const, count: 1, paths: ['a'], hidden: [] };
    expect(worktreeVerdict(facts({ content, holds: [{ kind: 'caller', reason: 'c' }] })).kind).toBe('kept');
    expect(worktreeVerdict(facts({ content }))).toMatchObject({
      kind: 'landed_dirty',
      finding: { repository: '/r', checkout: '/r/.worktrees/x', ref: 'x', dirty: 1, paths: ['a'] },
    });
  });

  it('a dirty checkout whose commits are only on a remote branch is plainly kept', () => {
    const content = { kind: 'dirty' as const, count: 1, paths: ['a'], hidden: [] };
    const commits = { landed: true as const, proof: { kind: 'held' as const, ref: 'refs/remotes/origin/x' } };
    expect(worktreeVerdict(facts({ content, commits })).kind).toBe('kept');
  });

  it('refuses on the default branch, on unlanded commits and on refused identity', () => {
    expect(worktreeVerdict(facts({ branch: 'main' })).reason).toBe(
      'on the default branch, which is never removed',
    );
    expect(worktreeVerdict(facts({ commits: { landed: false, unique: 2, reason: 'r' } })).reason).toBe(
      'local work: r',
    );
    expect(worktreeVerdict(facts({ content: { kind: 'refused', reason: 'cannot check' } })).reason).toBe(
      'cannot check',
    );
  });

  it('a rebase, merge or bisect in progress keeps the checkout', () => {
    expect(worktreeVerdict(facts({ operation: 'a bisect' }))).toMatchObject({
      kind: 'kept',
      reason: 'a bisect is in progress',
    });
  });

  it('names hidden edits and inner checkouts in its reasons', () => {
    const content = {
      kind: 'dirty' as const,
      count: 1,
      paths: ['a.txt'],
      hidden: [{ path: 'a.txt', why: 'assume-unchanged' as const }],
    };
    expect(worktreeVerdict(facts({ content })).reason).toBe(
      'landed but dirty: 1 changed path (a.txt [assume-unchanged, hidden from git status])',
    );
    const inner = {
      kind: 'inner' as const,
      inner: [
        { path: 'lib', kind: 'submodule' as const },
        { path: 'x/.git-like', kind: 'repository' as const },
        { path: 'y', kind: 'repository' as const },
        { path: 'refs/worktree/k', kind: 'ref' as const },
      ],
    };
    expect(worktreeVerdict(facts({ content: inner }))).toEqual({
      kind: 'kept',
      reason:
        'it has submodules (lib); git worktree remove refuses that; ' +
        'another repository is inside it (x/.git-like and 1 more); removal would delete it; ' +
        'it has refs of its own (refs/worktree/k); removal would delete them',
      holds: [],
    });
  });

  it("a dogsled.toml that does not load keeps an otherwise removable worktree: teardown can't run", () => {
    expect(
      worktreeVerdict(facts({ configProblem: 'repository config /r/dogsled.toml: unknown key "x"' })),
    ).toEqual({
      kind: 'kept',
      reason: 'its teardown cannot run: repository config /r/dogsled.toml: unknown key "x"',
      holds: [],
    });
    // A worktree kept for its own reason says that reason first.
    expect(
      worktreeVerdict(facts({ configProblem: 'p', commits: { landed: false, unique: 1, reason: 'r' } }))
        .reason,
    ).toBe('local work: r');
  });

  it('a detached HEAD deletes no branch', () => {
    const verdict = worktreeVerdict(facts({ branch: null }));
    expect(verdict.kind === 'removable' && verdict.proof.deleteBranch).toBe(false);
  });
});

describe('branch verdict', () => {
  const landed = { landed: true as const, proof: { kind: 'held' as const, ref: 'refs/remotes/origin/b' } };
  const branch = {
    repository: '/r',
    name: 'b',
    sha: 's',
    worktree: null,
    inMain: false,
    isDefault: false,
    commits: landed,
  };
  it('a branch with no worktree is removable when its commits are held or integrated', () => {
    expect(branchVerdict(branch)).toEqual({
      removable: true,
      reason: 'every commit is on origin/b',
      proof: landed.proof,
    });
  });

  it('the default branch, a checked-out branch and local work are report-only', () => {
    expect(branchVerdict({ ...branch, isDefault: true }).removable).toBe(false);
    expect(branchVerdict({ ...branch, worktree: '/r', inMain: true }).reason).toBe(
      'checked out in the main checkout',
    );
    expect(branchVerdict({ ...branch, worktree: '/w' }).reason).toBe('checked out in /w');
    expect(branchVerdict({ ...branch, worktree: '/r', inMain: true, operation: 'a rebase' }).reason).toBe(
      'a rebase in /r is in progress on it',
    );
    expect(branchVerdict({ ...branch, commits: { landed: false, unique: 1, reason: 'x' } })).toEqual({
      removable: false,
      reason: 'local work: x',
    });
  });
});
