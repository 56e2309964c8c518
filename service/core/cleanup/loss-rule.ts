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
  InnerCheckout,
  LandedDirty,
  StatusEntry,
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
  if (!identity.ok) return { kind: 'refused', reason: `${UNREADABLE_CHECK}: ${identity.reason}` };
  if (!status.ok) return { kind: 'refused', reason: `${UNREADABLE_READ}: ${status.reason}` };
  const { entries, ignored, hidden, inner } = status.status;
  const restore: string[] = [];
  const dirty = new Set<string>();
  for (const entry of entries) {
    const deletion = !entry.untracked && entry.inHead && !entry.submodule && DELETION.test(entry.xy);
    if (deletion && entry.xy !== '..') restore.push(entry.path);
    else dirty.add(entry.path);
  }
  // A flagged path that status names too (a sparse file Git un-skipped) is one changed path.
  for (const edit of hidden) dirty.add(edit.path);
  if (dirty.size > 0) {
    const all = [...new Set([...dirty, ...restore])].sort();
    const paths = all.slice(0, FINDING_PATHS);
    const shown = new Set(paths);
    const hiddenShown = hidden.filter((edit) => shown.has(edit.path) && !statusNames(entries, edit.path));
    return { kind: 'dirty', count: all.length, paths, hidden: hiddenShown };
  }
  if (inner.length > 0) return { kind: 'inner', inner };
  if (restore.length > 0) return { kind: 'deleted-only', restore: restore.sort(), ignored };
  return { kind: 'clean', ignored };
}

const statusNames = (entries: readonly StatusEntry[], path: string): boolean =>
  entries.some((entry) => entry.path === path);

/** Reasons that mean the checkout could not be read: unreadable evidence, never live work. */
export const UNREADABLE_CHECK = 'cannot check the checkout';
export const UNREADABLE_READ = 'cannot read the checkout';
/** The reason prefix when the repository's dogsled.toml keeps teardown from running. */
export const TEARDOWN_BLOCKED = 'its teardown cannot run';

/** Up to three changed paths, each hidden one marked with the index flag that hid it. */
function changedPaths(content: Extract<CheckoutContent, { kind: 'dirty' }>): string {
  const flags = new Map(content.hidden.map((edit) => [edit.path, edit.why]));
  return content.paths
    .slice(0, 3)
    .map((path) => (flags.has(path) ? `${path} [${flags.get(path)}, hidden from git status]` : path))
    .join(', ');
}

/** Why inner checkouts keep this one, by kind, each naming its first path. */
export function describeInner(inner: readonly InnerCheckout[]): string {
  const parts: string[] = [];
  const of = (kind: InnerCheckout['kind']) =>
    inner.filter((item) => item.kind === kind).map((item) => item.path);
  const named = (paths: string[]) => `${paths[0]}${paths.length > 1 ? ` and ${paths.length - 1} more` : ''}`;
  const submodules = of('submodule');
  if (submodules.length > 0)
    parts.push(`it has submodules (${named(submodules)}); git worktree remove refuses that`);
  const repositories = of('repository');
  if (repositories.length > 0)
    parts.push(`another repository is inside it (${named(repositories)}); removal would delete it`);
  const refs = of('ref');
  if (refs.length > 0) parts.push(`it has refs of its own (${named(refs)}); removal would delete them`);
  return parts.join('; ');
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
  /** Why the repository's dogsled.toml cannot be used (teardown cannot run), else null. */
  configProblem: string | null;
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
    const dirty = `${content.count} changed path${content.count === 1 ? '' : 's'} (${changedPaths(content)})`;
    if (commits.landed && inDefaultBranch(commits.proof)) {
      return {
        kind: 'landed_dirty',
        reason: `landed but dirty: ${dirty}`,
        finding: {
          repository: facts.repository,
          checkout: path,
          ref: facts.branch ?? `HEAD ${facts.head ?? 'unknown'}`,
          dirty: content.count,
          paths: content.paths,
        },
      };
    }
    return { kind: 'kept', reason: `dirty: ${dirty}`, holds };
  }
  if (content.kind === 'inner') return { kind: 'kept', reason: describeInner(content.inner), holds };
  if (!commits.landed) return { kind: 'kept', reason: `local work: ${commits.reason}`, holds };
  if (facts.head === null) return { kind: 'kept', reason: 'HEAD is unborn', holds };
  // Removal runs the repository's teardown first: a dogsled.toml that does not load stops it.
  if (facts.configProblem !== null) {
    return { kind: 'kept', reason: `${TEARDOWN_BLOCKED}: ${facts.configProblem}`, holds };
  }
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
  /** The operation (a rebase, a bisect) that holds it in `worktree` while that HEAD is detached. */
  operation?: string | null;
  isDefault: boolean;
  commits: CommitsVerdict;
}

export type BranchVerdict =
  | { removable: true; reason: string; proof: CommitsProof }
  | { removable: false; reason: string };

/** A local branch with no worktree is removable when integrated or every commit is on a remote branch. */
export function branchVerdict(facts: BranchFacts): BranchVerdict {
  if (facts.isDefault) return { removable: false, reason: 'the default branch is never removed' };
  if (facts.worktree !== null && facts.operation) {
    return { removable: false, reason: `${facts.operation} in ${facts.worktree} is in progress on it` };
  }
  if (facts.inMain) return { removable: false, reason: 'checked out in the main checkout' };
  if (facts.worktree !== null) return { removable: false, reason: `checked out in ${facts.worktree}` };
  if (!facts.commits.landed) return { removable: false, reason: `local work: ${facts.commits.reason}` };
  return { removable: true, reason: describeProof(facts.commits.proof), proof: facts.commits.proof };
}
