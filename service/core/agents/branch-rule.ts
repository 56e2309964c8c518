// The `--branch` rule (spec, "Repository configuration", steps 1-2): given what git and Herdr say
// about a branch, refuse, reuse the branch's worktree as it is, or make `<dir>/<branch with / as ->`
// from a start commit. Pure: the caller gathers the facts under the repository's lock and applies the
// plan; every refusal is decided here, before anything changes.

import { AGENT_LOCK_REASON } from '../cleanup/loss-rule.js';

export interface BranchWorktreeFacts {
  branch: string;
  /** `--base` as given, or null. */
  base: string | null;
  /** The commit `--base` names; null when it names none (or was not given). */
  baseCommit: string | null;
  /** Tips of `refs/heads/<branch>` and `refs/remotes/origin/<branch>`, when they exist. */
  localTip: string | null;
  remoteTip: string | null;
  /** The remote default branch's local name (else main) and the tips of its local and remote refs. */
  defaultBranch: { name: string; localTip: string | null; remoteTip: string | null };
  /** The worktree that has the branch checked out, if any. */
  worktree: { path: string; main: boolean; locked: string | null; prunable: string | null } | null;
  /** The Herdr workspace that already shows that worktree, if any. */
  shownIn: string | null;
  /** The path a new worktree would get (worktreePathFor) and why it cannot, if something is there. */
  newPath: string;
  newPathTaken: string | null;
}

export type BranchWorktreePlan =
  | { kind: 'refuse'; reason: string }
  | { kind: 'reuse'; path: string }
  | {
      kind: 'create';
      path: string;
      /** Null: check out the existing local branch. Otherwise make the branch at this commit. */
      start: string | null;
      /** Where the branch starts, for messages: `main`, `origin/feat/x`, `--base v2`. */
      from: string;
    };

/**
 * The longest worktree directory name (the branch with each / as -), in bytes: the file system's
 * 255 less room for the number git appends to its own copy of the name (`.git/worktrees/<name>N`)
 * when that is taken. A longer one is a branch git makes and then cannot give a worktree.
 */
export const WORKTREE_NAME_MAX_BYTES = 240;

/** The longest part of a branch name between slashes: git's ref file, `<part>.lock`, is 255 at most. */
export const BRANCH_PART_MAX_BYTES = 250;

const encoder = new TextEncoder();

/**
 * Why git cannot give `branch` a worktree at worktreePathFor although `check-ref-format --branch`
 * accepts the name, or null. Git itself refuses `HEAD` and a leading `-` in new branches (checked
 * here too, whatever git's version). `@` passes that check, but `git worktree add` makes the branch
 * and then fails in a directory named `@` (git 2.39: "not a git repository: .git/worktrees/@"); a
 * name too long for one directory fails the same way, after the branch is made.
 */
export function worktreeNameProblem(branch: string): string | null {
  if (branch === 'HEAD') return 'git reserves HEAD';
  if (branch.startsWith('-')) return 'it would read as an option';
  const name = worktreeNameOf(branch);
  if (name === '@') return 'git cannot make a worktree in a directory named @';
  const part = branch.split('/').find((each) => encoder.encode(each).length > BRANCH_PART_MAX_BYTES);
  if (part !== undefined) return `a part between slashes is over ${BRANCH_PART_MAX_BYTES} bytes`;
  const bytes = encoder.encode(name).length;
  if (bytes > WORKTREE_NAME_MAX_BYTES) {
    return `its worktree directory name would be ${bytes} bytes, over ${WORKTREE_NAME_MAX_BYTES}`;
  }
  return null;
}

function worktreeNameOf(branch: string): string {
  return branch.replaceAll('/', '-');
}

/** `<dir>/<branch with each / as ->`: one directory per branch, directly under the worktree dir. */
export function worktreePathFor(dir: string, branch: string): string {
  return `${dir.replace(/\/+$/, '')}/${worktreeNameOf(branch)}`;
}

export function branchWorktreePlan(facts: BranchWorktreeFacts): BranchWorktreePlan {
  const refuse = (reason: string): BranchWorktreePlan => ({ kind: 'refuse', reason });
  const { branch, worktree } = facts;
  if (facts.base !== null && (facts.localTip !== null || facts.remoteTip !== null)) {
    const where = facts.localTip !== null ? 'already exists' : 'already exists on origin';
    return refuse(`--base ${facts.base}: branch ${branch} ${where}; leave out --base to use it as it is`);
  }
  if (worktree?.main) {
    return refuse(
      `--branch ${branch}: it is checked out in the main checkout ${worktree.path}; an agent needs a branch of its own`,
    );
  }
  if (worktree !== null) {
    if (worktree.locked !== null && worktree.locked !== AGENT_LOCK_REASON) {
      const why = worktree.locked === '' ? 'without a reason' : `with reason "${worktree.locked}"`;
      return refuse(`--branch ${branch}: its worktree ${worktree.path} is locked ${why}, not by dogsled`);
    }
    if (worktree.prunable !== null) {
      return refuse(
        `--branch ${branch}: its worktree ${worktree.path} is missing (${worktree.prunable}); run git worktree prune or restore it`,
      );
    }
    if (facts.shownIn !== null) {
      return refuse(
        `--branch ${branch}: its worktree ${worktree.path} is already open in Herdr workspace ${facts.shownIn}, which may belong to a running child`,
      );
    }
    return { kind: 'reuse', path: worktree.path };
  }
  if (facts.newPathTaken !== null) {
    return refuse(`--branch ${branch}: cannot make its worktree at ${facts.newPath}: ${facts.newPathTaken}`);
  }
  if (facts.localTip !== null) return { kind: 'create', path: facts.newPath, start: null, from: branch };
  if (facts.base !== null) {
    if (facts.baseCommit === null) return refuse(`--base ${facts.base}: not a commit in this repository`);
    return { kind: 'create', path: facts.newPath, start: facts.baseCommit, from: `--base ${facts.base}` };
  }
  if (facts.remoteTip !== null) {
    return { kind: 'create', path: facts.newPath, start: facts.remoteTip, from: `origin/${branch}` };
  }
  const { name, localTip, remoteTip } = facts.defaultBranch;
  if (localTip !== null) return { kind: 'create', path: facts.newPath, start: localTip, from: name };
  if (remoteTip !== null)
    return { kind: 'create', path: facts.newPath, start: remoteTip, from: `origin/${name}` };
  return refuse(`--branch ${branch}: no base: neither ${name} nor origin/${name} exists; give --base`);
}
