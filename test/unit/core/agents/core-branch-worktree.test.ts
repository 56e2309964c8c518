import { describe, expect, test } from 'vitest';
import {
  type BranchWorktreeFacts,
  branchWorktreePlan,
  WORKTREE_NAME_MAX_BYTES,
  worktreeNameProblem,
  worktreePathFor,
} from '../../../../service/core/agents/branch-rule.js';
import { childRole, launchIsFinal, launchPaneRecord } from '../../../../service/core/agents/launch-state.js';
import { quotedVisible } from '../../../../service/core/text/clean.js';

const MAIN_TIP = 'a'.repeat(40);
const ORIGIN_TIP = 'b'.repeat(40);

function facts(extra: Partial<BranchWorktreeFacts> = {}): BranchWorktreeFacts {
  return {
    branch: 'feat/x',
    base: null,
    baseCommit: null,
    localTip: null,
    remoteTip: null,
    defaultBranch: { name: 'main', localTip: MAIN_TIP, remoteTip: ORIGIN_TIP },
    worktree: null,
    shownIn: null,
    newPath: '/repo/.worktrees/feat-x',
    newPathTaken: null,
    ...extra,
  };
}

const worktree = (extra: Partial<NonNullable<BranchWorktreeFacts['worktree']>> = {}) => ({
  path: '/repo/.worktrees/feat-x',
  main: false,
  locked: 'agent:worktree',
  prunable: null,
  ...extra,
});

describe('worktreePathFor', () => {
  test('puts each branch directly under the worktree dir, every / as -', () => {
    expect(worktreePathFor('/repo/.worktrees', 'feat/unit/a')).toBe('/repo/.worktrees/feat-unit-a');
    expect(worktreePathFor('/repo/.worktrees/', 'x')).toBe('/repo/.worktrees/x');
  });
});

describe('worktreeNameProblem', () => {
  test('refuses what git accepts as a branch but cannot give a worktree, and what git reserves', () => {
    expect(worktreeNameProblem('@')).toBe('git cannot make a worktree in a directory named @');
    expect(worktreeNameProblem('HEAD')).toBe('git reserves HEAD');
    expect(worktreeNameProblem('-x')).toBe('it would read as an option');
    expect(worktreeNameProblem(`a/${'b'.repeat(251)}`)).toBe('a part between slashes is over 250 bytes');
    // Bytes, not characters: é is two.
    expect(worktreeNameProblem(`${'é'.repeat(60)}/${'é'.repeat(61)}`)).toBe(
      'its worktree directory name would be 243 bytes, over 240',
    );
  });

  test('keeps names whose directory git can make, up to the byte bound', () => {
    for (const name of ['a@', '@a', '@/a', 'x/HEAD', 'HEAD/x', 'x/-y', 'head', 'feat/unit']) {
      expect(worktreeNameProblem(name), name).toBeNull();
    }
    expect(worktreeNameProblem('x'.repeat(WORKTREE_NAME_MAX_BYTES))).toBeNull();
    expect(worktreeNameProblem(`${'x'.repeat(120)}/${'y'.repeat(119)}`)).toBeNull();
    expect(worktreeNameProblem(`${'x'.repeat(120)}/${'y'.repeat(120)}`)).not.toBeNull();
  });
});

describe('branchWorktreePlan', () => {
  test('a new branch starts from the default branch’s local name', () => {
    expect(branchWorktreePlan(facts())).toEqual({
      kind: 'create',
      path: '/repo/.worktrees/feat-x',
      start: MAIN_TIP,
      from: 'main',
    });
  });

  test('without a local default branch, from origin’s', () => {
    const plan = branchWorktreePlan(
      facts({ defaultBranch: { name: 'trunk', localTip: null, remoteTip: ORIGIN_TIP } }),
    );
    expect(plan).toMatchObject({ kind: 'create', start: ORIGIN_TIP, from: 'origin/trunk' });
  });

  test('--base wins over the default; a base that names no commit is refused', () => {
    expect(branchWorktreePlan(facts({ base: 'v2', baseCommit: 'c'.repeat(40) }))).toMatchObject({
      start: 'c'.repeat(40),
      from: '--base v2',
    });
    expect(branchWorktreePlan(facts({ base: 'v9', baseCommit: null }))).toEqual({
      kind: 'refuse',
      reason: '--base v9: not a commit in this repository',
    });
  });

  test('a branch only origin has starts from it; an existing local branch is checked out as it is', () => {
    expect(branchWorktreePlan(facts({ remoteTip: 'd'.repeat(40) }))).toMatchObject({
      start: 'd'.repeat(40),
      from: 'origin/feat/x',
    });
    expect(branchWorktreePlan(facts({ localTip: 'e'.repeat(40), remoteTip: 'd'.repeat(40) }))).toMatchObject({
      kind: 'create',
      start: null,
    });
  });

  test('--base for a branch that exists is refused, before anything else is considered', () => {
    const plan = branchWorktreePlan(
      facts({ base: 'main', baseCommit: MAIN_TIP, localTip: MAIN_TIP, worktree: worktree({ main: true }) }),
    );
    expect(plan).toEqual({
      kind: 'refuse',
      reason: '--base main: branch feat/x already exists; leave out --base to use it as it is',
    });
  });

  test('the branch of the main checkout, another lock, a missing worktree and an open one are refused', () => {
    expect(branchWorktreePlan(facts({ worktree: worktree({ main: true, path: '/repo' }) })).kind).toBe(
      'refuse',
    );
    expect(branchWorktreePlan(facts({ worktree: worktree({ locked: 'mine' }) }))).toMatchObject({
      reason: expect.stringContaining('is locked with reason "mine", not by dogsled'),
    });
    expect(branchWorktreePlan(facts({ worktree: worktree({ locked: '' }) }))).toMatchObject({
      reason: expect.stringContaining('is locked without a reason'),
    });
    expect(
      branchWorktreePlan(
        facts({ worktree: worktree({ prunable: 'gitdir file points to non-existent location' }) }),
      ),
    ).toMatchObject({
      reason: expect.stringContaining('is missing (gitdir file points to non-existent location)'),
    });
    expect(branchWorktreePlan(facts({ worktree: worktree(), shownIn: 'w4' }))).toMatchObject({
      reason: expect.stringContaining('already open in Herdr workspace w4'),
    });
  });

  test('an existing worktree, dogsled’s or unlocked, is reused where it is', () => {
    expect(branchWorktreePlan(facts({ worktree: worktree({ path: '/elsewhere' }) }))).toEqual({
      kind: 'reuse',
      path: '/elsewhere',
    });
    expect(branchWorktreePlan(facts({ worktree: worktree({ locked: null }) })).kind).toBe('reuse');
  });

  test('a taken path and a repository without any base are refused', () => {
    expect(branchWorktreePlan(facts({ newPathTaken: 'a directory is already there' }))).toEqual({
      kind: 'refuse',
      reason:
        '--branch feat/x: cannot make its worktree at /repo/.worktrees/feat-x: a directory is already there',
    });
    expect(
      branchWorktreePlan(facts({ defaultBranch: { name: 'main', localTip: null, remoteTip: null } })),
    ).toEqual({
      kind: 'refuse',
      reason: '--branch feat/x: no base: neither main nor origin/main exists; give --base',
    });
  });
});

describe('launch states and roles', () => {
  test('only started, refused and failed launches are final', () => {
    expect(
      ['preparing', 'started', 'refused', 'failed', 'unknown'].filter((s) => launchIsFinal(s as never)),
    ).toEqual(['started', 'refused', 'failed']);
    expect(launchPaneRecord({ id: 'l_1', state: 'unknown', terminal_id: null })).toBeNull();
    expect(launchPaneRecord({ id: 'l_1', state: 'failed', terminal_id: 't' })).toEqual({
      terminal: 't',
      record: { kind: 'launch', id: 'l_1', finished: true },
    });
  });

  test('a profile’s role wins; otherwise a child with a branch writes and any other reads', () => {
    expect(childRole(null, true)).toBe('writer');
    expect(childRole(null, false)).toBe('reader');
    expect(childRole('reader', true)).toBe('reader');
    expect(childRole('writer', false)).toBe('writer');
  });
});

describe('quotedVisible', () => {
  test('quotes a value and shows every control character, C1 included, as \\xNN', () => {
    expect(quotedVisible('a\nb\u001b[31m\u009b"q"')).toBe('"a\\x0ab\\x1b[31m\\x9b\\"q\\""');
    expect(quotedVisible('x'.repeat(100), 10)).toBe(`"${'x'.repeat(9)}…"`);
  });
});
