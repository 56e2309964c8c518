// Build-output targets (spec, "Cleanup"): a directory directly under a main checkout or a linked
// worktree whose CACHEDIR.TAG starts with the cache-directory signature, such as Rust's target/.
// The verdict is pure: the caller gathers workspaces, busy paths and the plan's removals. Work is
// attributed to the deepest known checkout containing it, so a pane in a linked worktree nested
// inside the main checkout holds that worktree's targets, not the main checkout's.

/** The first bytes of every CACHEDIR.TAG (https://bford.info/cachedir/). */
export const CACHEDIR_SIGNATURE = 'Signature: 8a477f597d28d172789f06886806bc55';

export interface Target {
  /** The build-output directory. */
  path: string;
  /** The main checkout or linked worktree it sits directly under. */
  checkout: string;
  /** Disk usage (allocated blocks), a lower bound when `partial`. */
  bytes: number;
  /** The size walk stopped at its bound before it saw every entry. */
  partial: boolean;
}

export interface TargetFacts {
  /** Every known checkout (main and linked), used to attribute paths to the deepest one. */
  checkouts: readonly string[];
  /** Directories shown by Herdr workspaces (a checkout, or a path inside one). */
  workspaceCheckouts: readonly string[];
  /** Working directories of panes and processes that work (cwd). */
  busyPaths: readonly string[];
  /** Checkouts that the same plan removes; their build output goes with them. */
  removedCheckouts: readonly string[];
}

export type TargetVerdict =
  | { kind: 'removable' }
  | { kind: 'keep'; reason: string }
  /** Not listed at all: a worktree removal in the same plan takes it. */
  | { kind: 'omitted'; reason: string };

/** True when a file starting with `text` is a valid cache-directory tag. */
export function hasCachedirSignature(text: string): boolean {
  return text.startsWith(CACHEDIR_SIGNATURE);
}

export function targetVerdict(target: Pick<Target, 'path' | 'checkout'>, facts: TargetFacts): TargetVerdict {
  const checkout = trimSlash(target.checkout);
  if (facts.removedCheckouts.some((removed) => trimSlash(removed) === checkout)) {
    return { kind: 'omitted', reason: `removed with worktree ${checkout}` };
  }
  const known = [...facts.checkouts, checkout].map(trimSlash);
  const worksHere = (path: string): boolean => owningCheckout(path, known) === checkout;
  if (facts.workspaceCheckouts.some(worksHere)) {
    return { kind: 'keep', reason: `a Herdr workspace shows ${checkout}` };
  }
  if (facts.busyPaths.some(worksHere)) {
    return { kind: 'keep', reason: `a pane or process works in ${checkout}` };
  }
  return { kind: 'removable' };
}

/** The deepest checkout that contains `path` (or is it), or null when none does. */
export function owningCheckout(path: string, checkouts: readonly string[]): string | null {
  const inside = trimSlash(path);
  let best: string | null = null;
  for (const candidate of checkouts) {
    const checkout = trimSlash(candidate);
    if (!contains(checkout, inside)) continue;
    if (best === null || checkout.length > best.length) best = checkout;
  }
  return best;
}

/** True when `path` is `dir` or lies below it; paths are absolute and normalized by the caller. */
export function contains(dir: string, path: string): boolean {
  if (dir === '/') return path.startsWith('/');
  return path === dir || path.startsWith(`${dir}/`);
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') || '/' : path;
}
