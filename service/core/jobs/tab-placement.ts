// Where a job's tab opens in Herdr (spec, "Jobs, agents, and owners"): work in a repository opens a
// new tab where that repository is shown (the workspace of its worktree, else the main checkout's
// workspace), else a new workspace for it; work outside any repository opens a new tab in the
// caller's workspace, else in the active one. Paths arrive resolved (real paths) from the edge.

export interface ShownCheckout {
  workspace: string;
  /** The real path of the checkout the workspace shows (Herdr's `worktree.checkout_path`). */
  checkout: string;
}

export interface TabPlacementFacts {
  /** The job's directory (real path). */
  cwd: string;
  /** The checkout containing `cwd`, or null outside any repository. */
  checkout: string | null;
  /** The repository's main checkout (null for a bare repository or when unknown). */
  mainCheckout: string | null;
  /** The repository's name, for the label of a new workspace. */
  repositoryName: string | null;
  /** Every workspace that exists now; `shows` is the subset that shows a checkout. */
  workspaces: readonly string[];
  shows: readonly ShownCheckout[];
  /** The caller's workspace, when the caller runs in Herdr. */
  callerWorkspace: string | null;
  /** Herdr's focused workspace. */
  activeWorkspace: string | null;
}

export type TabPlacement =
  | { kind: 'tab'; workspace: string; why: TabReason }
  /** A tab in Herdr's active workspace, when none can be named (Herdr resolves it). */
  | { kind: 'active-tab'; why: 'active workspace' }
  | {
      kind: 'workspace';
      label: string;
      /** The checkout the new workspace shows (the main checkout when known); null outside a repository. */
      shows: string | null;
      why: 'new workspace for the repository' | 'no workspace exists';
    };

export type TabReason =
  | "the checkout's workspace"
  | "the main checkout's workspace"
  | "the caller's workspace"
  | 'active workspace';

export function chooseTabPlacement(facts: TabPlacementFacts): TabPlacement {
  if (facts.checkout !== null) {
    const own = shownBy(facts.shows, facts.checkout);
    if (own !== undefined) return { kind: 'tab', workspace: own, why: "the checkout's workspace" };
    if (facts.mainCheckout !== null) {
      const main = shownBy(facts.shows, facts.mainCheckout);
      if (main !== undefined) return { kind: 'tab', workspace: main, why: "the main checkout's workspace" };
    }
    const shows = facts.mainCheckout ?? facts.checkout;
    const label = facts.repositoryName ?? baseName(shows);
    return { kind: 'workspace', label, shows, why: 'new workspace for the repository' };
  }
  const exists = (id: string | null): id is string => id !== null && facts.workspaces.includes(id);
  if (exists(facts.callerWorkspace)) {
    return { kind: 'tab', workspace: facts.callerWorkspace, why: "the caller's workspace" };
  }
  if (exists(facts.activeWorkspace)) {
    return { kind: 'tab', workspace: facts.activeWorkspace, why: 'active workspace' };
  }
  if (facts.workspaces.length > 0) return { kind: 'active-tab', why: 'active workspace' };
  return { kind: 'workspace', label: baseName(facts.cwd), shows: null, why: 'no workspace exists' };
}

/** The first workspace showing `checkout`; Herdr lists workspaces in sidebar order. */
function shownBy(shows: readonly ShownCheckout[], checkout: string): string | undefined {
  return shows.find((shown) => shown.checkout === checkout)?.workspace;
}

function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || '/';
}
