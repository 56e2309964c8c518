// The vocabulary of the loss rule (spec, "Cleanup"): the facts service/git gathers about checkouts,
// commits and refs, the holds other layers supply, and the verdicts and proofs the rule returns.
// Every verdict carries a reason a user can act on; a removable verdict carries its proof.

/** Something live that keeps a checkout: panes, processes, the caller, launches, items, locks. */
export interface Hold {
  kind: HoldKind;
  /** One line naming what holds and where, e.g. `worktree locked by git: in use by ci`. */
  reason: string;
}

export type HoldKind =
  | 'pane'
  | 'process'
  | 'caller'
  | 'process-table'
  | 'launch'
  | 'item'
  | 'agent'
  | 'lock'
  | 'unlinked';

// ---- checkout facts (git status) ----

export type CheckoutIdentity = { ok: true } | { ok: false; reason: string };

export interface StatusEntry {
  path: string;
  /** Porcelain v2 XY (`.D`, `M.`), `??` for untracked, `u` + XY for unmerged. */
  xy: string;
  untracked: boolean;
  /** The path exists in HEAD (porcelain v2 mH is not 000000). */
  inHead: boolean;
  submodule: boolean;
}

/** A tracked file whose working copy differs from the index while `git status` is told not to look. */
export interface HiddenEdit {
  path: string;
  why: 'assume-unchanged' | 'skip-worktree';
}

/**
 * Another checkout's content inside this one, which removal would destroy or Git refuses to remove:
 * a checked-out submodule, a repository or worktree nested in an ignored directory (an untracked one
 * is an untracked path), or a ref kept in a linked worktree's own git dir.
 */
export interface InnerCheckout {
  path: string;
  kind: 'submodule' | 'repository' | 'ref';
}

export interface CheckoutStatus {
  head: string | null;
  /** Short branch name, or null when detached. */
  branch: string | null;
  /** Tracked changes and untracked paths; ignored paths are apart. */
  entries: StatusEntry[];
  /** Ignored files, which do not count. */
  ignored: number;
  /** Edits `git status` does not print (assume-unchanged, skip-worktree). */
  hidden: HiddenEdit[];
  /** Other checkouts' content inside this one; empty when not looked for. */
  inner: InnerCheckout[];
}

/** What removing the checkout would do to its files. */
export type CheckoutContent =
  | { kind: 'clean'; ignored: number }
  /** Only tracked files deleted: restored from the held HEAD before removal. */
  | { kind: 'deleted-only'; restore: string[]; ignored: number }
  | {
      kind: 'dirty';
      count: number;
      /** Up to ten paths, sorted. */
      paths: string[];
      /** Those of `paths` that only the index flags hid, with the flag. */
      hidden: HiddenEdit[];
    }
  /** Clean itself, but holding other checkouts' content (never removed). */
  | { kind: 'inner'; inner: InnerCheckout[] }
  /** Identity refused or status unreadable: never clean, never a parent's state. */
  | { kind: 'refused'; reason: string };

// ---- commit facts (graphs and diffs) ----

export interface BlobState {
  mode: string;
  oid: string;
}

/** One path of a tree diff; null means absent on that side. */
export interface PathChange {
  before: BlobState | null;
  after: BlobState | null;
}

export type TreeDiff = Map<string, PathChange>;

/** The content question Git answers: merge ours and theirs from base, one path, all one mode. */
export interface MergeQuestion {
  mode: string;
  base: string;
  ours: string;
  theirs: string;
}

export type MergeAnswer = { conflict: true } | { conflict: false; merged: string };

// ---- proofs and verdicts ----

/** A run of the branch's commits (oldest `first` to newest `last`) applied by one commit. */
export interface AppliedRun {
  /** The run's net diff goes from `base` to `last`. */
  base: string;
  first: string;
  last: string;
  commits: number;
  /** The commit on the default branch whose three-way merge reproduces the run. */
  by: string;
}

/** How a tip's work is known to be elsewhere. */
export type CommitsProof =
  /** The tip is an ancestor of a default-branch ref (merged, fast-forwarded, or never diverged). */
  | { kind: 'ancestor'; ref: string }
  /** The tip is in the history of a remote-tracking ref (pushed). Not integration. */
  | { kind: 'held'; ref: string }
  /** Each run of the branch's commits was applied by a commit of `ref` (squash, cherry-pick, stack). */
  | { kind: 'applied'; ref: string; runs: AppliedRun[] }
  /** A ref that contains the tip is itself integrated (checked directly, never through another alias). */
  | { kind: 'contained'; ref: string; by: Extract<CommitsProof, { kind: 'ancestor' | 'applied' }> }
  /** The branch no longer exists. */
  | { kind: 'deleted' };

export type CommitsVerdict =
  | { landed: true; proof: CommitsProof }
  | {
      landed: false;
      /** Commits no default-branch or (after a good fetch) remote-tracking ref has. */
      unique: number;
      reason: string;
    };

/** True when a proof puts the work in the default branch (not merely on a remote branch). */
export function inDefaultBranch(proof: CommitsProof): boolean {
  return proof.kind !== 'held';
}

export type LandedDirty = {
  repository: string;
  checkout: string;
  /** The branch, or `HEAD <sha>` when detached. */
  ref: string;
  dirty: number;
  /** Up to ten of the dirty paths. */
  paths: string[];
};
