// The loss rule (spec, "Cleanup"), one rule for worktrees, detached HEADs and branches: a checkout
// must have no unique tracked or untracked content (ignored files do not count; deleted tracked
// files alone are restored from the held HEAD), every commit must be held by the default branch or
// (after a good fetch) remote-tracking refs, or be integrated, and nothing may hold the checkout.
// A doubtful case is kept. Pure: service/cleanup gathers the facts and the holds.

import type {
  CheckoutContent,
  CheckoutIdentity,
  CheckoutStatus,
  CommitsProof,
  CommitsVerdict,
  Hold,
  LandedDirty,
} from './loss-types.js';
import { inDefaultBranch } from './loss-types.js';

/** The lock reason dogsled gives the worktrees it makes; any other lock is someone else's hold. */
export const AGENT_LOCK_REASON = 'agent:worktree';
/** A landed_dirty finding names at most this many paths. */
export const FINDING_PATHS = 10;

const DELETION = /^[D.][D.]$/;

/** What the checkout's files tell, once its identity is confirmed. */
export function checkoutContent(
  identity: CheckoutIdentity,
  status: { ok: true; status: CheckoutStatus } | { ok: false; reason: string },
): CheckoutContent {
  if (!identity.ok) return { kind: 'refused', reason: `cannot check the checkout: ${identity.reason}` };
  if (!status.ok) return { kind: 'refused', reason: `cannot read the checkout: ${status.reason}` };
  const { entries, ignored } = status.status;
  const restore: string[] = [];
  const dirty: string[] = [];
  for (const entry of entries) {
    const deletion = !entry.untracked && entry.inHead && !entry.submodule && DELETION.test(entry.xy);
    if (deletion && entry.xy !== '..') restore.push(entry.path);
    else dirty.push(entry.path);
  }
  if (dirty.length > 0) {
    const all = [...dirty, ...restore].sort();
    return { kind: 'dirty', count: all.length, paths: all.slice(0, FINDING_PATHS) };
  }
  if (restore.length > 0) return { kind: 'deleted-only', restore: restore.sort(), ignored: ignored.length };
  return { kind: 'clean', ignored: ignored.length };
}

/** Commits verdict from holding and integration facts, in the order a proof is most direct. */
export function commitsVerdict(input: {
  /** The ref holding the tip, when held; a default-branch ref gives an `ancestor` proof. */
  heldBy: string | null;
  defaultRefs: readonly string[];
  unique: number;
  integration: CommitsProof | null;
  fetchFailed: boolean;
}): CommitsVerdict {
  const { heldBy, defaultRefs } = input;
  // The strongest proof first: in the default branch, then applied to it, then merely pushed.
  if (heldBy !== null && defaultRefs.includes(heldBy))
    return { landed: true, proof: { kind: 'ancestor', ref: heldBy } };
  if (input.integration !== null) return { landed: true, proof: input.integration };
  if (heldBy !== null) return { landed: true, proof: { kind: 'held', ref: heldBy } };
  const count = `${input.unique} commit${input.unique === 1 ? '' : 's'}`;
  const where = input.fetchFailed
    ? 'not in the default branch (fetch failed, so remote branches do not count)'
    : 'not in the default branch or on a remote branch';
  return { landed: false, unique: input.unique, reason: `${count} ${where}` };
}

const short = (sha: string): string => sha.slice(0, 10);
const refName = (ref: string): string => ref.replace(/^refs\/(heads|remotes)\//, '');

/** The proof in words, e.g. `applied by 1a2b3c4d5e on origin/main`. */
export function describeProof(proof: CommitsProof): string {
  switch (proof.kind) {
    case 'ancestor':
      return `merged into ${refName(proof.ref)}`;
    case 'held':
      return `every commit is on ${refName(proof.ref)}`;
    case 'applied': {
      const by = proof.runs.map((run) => short(run.by)).join(', ');
      const runs = proof.runs.length === 1 ? '' : ` as ${proof.runs.length} runs`;
      return `applied${runs} by ${by} on ${refName(proof.ref)}`;
    }
    case 'contained':
      return `contained in ${refName(proof.ref)}, ${describeProof(proof.by)}`;
    case 'deleted':
      return 'the branch was deleted';
  }
}

export interface WorktreeFacts {
  /** Main checkout of the repository. */
  repository: string;
  path: string;
  /** Short branch name, or null when detached. */
  branch: string | null;
  head: string | null;
  /** Git lists it (`git worktree list`). */
  listed: boolean;
  prunable: string | null;
  /** null when unlocked, '' when locked without a reason. */
  locked: string | null;
  exists: boolean;
  /** The worktree's own `.git` file is there. */
  gitFile: boolean;
  /** dogsled's worktrees.json has a record of it. */
  registered: boolean;
  defaultBranch: string;
  /** null when not read (absent or unlinked). */
  content: CheckoutContent | null;
  /** A rebase, merge, cherry-pick, revert or bisect waiting in the checkout, else null. */
  operation: string | null;
  commits: CommitsVerdict | null;
  /** Holds supplied by other layers (panes, processes, the caller, launches, items). */
  holds: Hold[];
}

export interface WorktreeProof {
  checkout: 'clean' | 'deleted-only';
  /** Deleted tracked paths restored from HEAD before removal. */
  restore: string[];
  /** Ignored paths, which do not count. */
  ignored: number;
  commits: CommitsProof;
  /** Remove the agent:worktree lock first. */
  unlock: boolean;
  /** The branch goes too: its commits are held. */
  deleteBranch: boolean;
}

export type WorktreeVerdict =
  | { kind: 'removable'; reason: string; proof: WorktreeProof }
  /** The path is gone: only a registration record remains (removable when dogsled has one). */
  | { kind: 'stale'; reason: string; removable: boolean }
  | { kind: 'unlinked'; reason: string; hold: Hold }
  | { kind: 'landed_dirty'; reason: string; finding: LandedDirty }
  | { kind: 'kept'; reason: string; holds: Hold[] };

/** The holds of a worktree: the supplied ones, and a lock that is not dogsled's own. */
export function holdsOf(facts: Pick<WorktreeFacts, 'locked' | 'holds'>): Hold[] {
  const holds = [...facts.holds];
  if (facts.locked !== null && facts.locked !== AGENT_LOCK_REASON) {
    const why = facts.locked === '' ? 'no reason given' : facts.locked;
    holds.push({ kind: 'lock', reason: `worktree locked by git (${why})` });
  }
  return holds;
}

function unlinked(reason: string, path: string): WorktreeVerdict {
  const text = `${reason}; directory remains: ${path}`;
  return { kind: 'unlinked', reason: text, hold: { kind: 'unlinked', reason: text } };
}

export function worktreeVerdict(facts: WorktreeFacts): WorktreeVerdict {
  const { path } = facts;
  if (!facts.exists) {
    const reason = facts.registered
      ? 'stale registration: the path is gone (only the record is removed)'
      : 'the path is gone; git still lists it (git worktree prune forgets it)';
    return { kind: 'stale', reason, removable: facts.registered };
  }
  if (!facts.listed) return unlinked('worktree unregistered by git', path);
  if (facts.prunable !== null) return unlinked(`git calls it prunable (${facts.prunable})`, path);
  if (!facts.gitFile) return unlinked('its .git file is gone', path);

  const holds = holdsOf(facts);
  const content = facts.content;
  if (content === null || content.kind === 'refused') {
    return { kind: 'kept', reason: content?.reason ?? 'the checkout was not read', holds };
  }
  if (holds.length > 0) return { kind: 'kept', reason: `held: ${holds[0]?.reason}`, holds };
  // Its state (the rebase's remaining steps, bisect refs) lives in the worktree's git dir and goes with it.
  if (facts.operation !== null) return { kind: 'kept', reason: `${facts.operation} is in progress`, holds };
  if (facts.branch !== null && facts.branch === facts.defaultBranch) {
    return { kind: 'kept', reason: 'on the default branch, which is never removed', holds };
  }
  const commits = facts.commits;
  if (commits === null) return { kind: 'kept', reason: 'its commits were not checked', holds };
  if (content.kind === 'dirty') {
    const dirty = `${content.count} changed path${content.count === 1 ? '' : 's'}`;
    if (commits.landed && inDefaultBranch(commits.proof)) {
      return {
        kind: 'landed_dirty',
        reason: `landed but dirty: ${dirty} (${content.paths.slice(0, 3).join(', ')})`,
        finding: {
          repository: facts.repository,
          checkout: path,
          ref: facts.branch ?? `HEAD ${facts.head ?? 'unknown'}`,
          dirty: content.count,
          paths: content.paths,
        },
      };
    }
    return { kind: 'kept', reason: `dirty: ${dirty} (${content.paths.slice(0, 3).join(', ')})`, holds };
  }
  if (!commits.landed) return { kind: 'kept', reason: `local work: ${commits.reason}`, holds };
  if (facts.head === null) return { kind: 'kept', reason: 'HEAD is unborn', holds };
  const restore = content.kind === 'deleted-only' ? content.restore : [];
  const proof: WorktreeProof = {
    checkout: content.kind,
    restore,
    ignored: content.ignored,
    commits: commits.proof,
    unlock: facts.locked === AGENT_LOCK_REASON,
    deleteBranch: facts.branch !== null,
  };
  const files =
    restore.length > 0
      ? `only deleted tracked files (${restore.length}, restored before removal)`
      : content.ignored > 0
        ? 'clean apart from ignored files'
        : 'clean';
  return { kind: 'removable', reason: `${files}; ${describeProof(commits.proof)}`, proof };
}

export interface BranchFacts {
  repository: string;
  /** Short name. */
  name: string;
  sha: string;
  /** The checkout that has it checked out, else null. */
  worktree: string | null;
  /** That checkout is the main checkout. */
  inMain: boolean;
  isDefault: boolean;
  commits: CommitsVerdict;
}

export type BranchVerdict =
  | { removable: true; reason: string; proof: CommitsProof }
  | { removable: false; reason: string };

/** A local branch with no worktree is removable when integrated or every commit is on a remote branch. */
export function branchVerdict(facts: BranchFacts): BranchVerdict {
  if (facts.isDefault) return { removable: false, reason: 'the default branch is never removed' };
  if (facts.inMain) return { removable: false, reason: 'checked out in the main checkout' };
  if (facts.worktree !== null) return { removable: false, reason: `checked out in ${facts.worktree}` };
  if (!facts.commits.landed) return { removable: false, reason: `local work: ${facts.commits.reason}` };
  return { removable: true, reason: describeProof(facts.commits.proof), proof: facts.commits.proof };
}
