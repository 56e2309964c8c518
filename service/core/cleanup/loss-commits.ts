// Which commits are held (spec, "Cleanup": "every commit must be held by the default branch or
// remote-tracking refs"), answered in memory over one commit graph: the commits that some tip has
// and the integration target lacks, with their parents. A tip outside that graph is an ancestor of
// the target. After a failed fetch the caller passes only the default-branch refs as holders.

/** Commits not in the integration target, each with its parents (some of which may be in it). */
export type Graph = ReadonlyMap<string, readonly string[]>;

export interface RefTip {
  /** Full ref name. */
  name: string;
  sha: string;
}

/** Every commit of `tip` that is in the graph (so not in the target). */
export function ancestorsInGraph(graph: Graph, tip: string): Set<string> {
  const seen = new Set<string>();
  const stack = [tip];
  while (stack.length > 0) {
    const sha = stack.pop() as string;
    if (seen.has(sha)) continue;
    const parents = graph.get(sha);
    if (parents === undefined) continue;
    seen.add(sha);
    for (const parent of parents) if (!seen.has(parent)) stack.push(parent);
  }
  return seen;
}

/** Parents of the tip's graph commits that lie outside the graph: where it meets the target. */
export function boundaryOf(graph: Graph, commits: ReadonlySet<string>): Set<string> {
  const boundary = new Set<string>();
  for (const sha of commits) {
    for (const parent of graph.get(sha) ?? []) if (!graph.has(parent)) boundary.add(parent);
  }
  return boundary;
}

/**
 * For each graph commit that some holder has, the first holder (in the given order) that has it.
 * Each commit is visited once: a walk stops at commits an earlier holder already marked, because
 * their ancestors are marked too.
 */
export function holderIndex(graph: Graph, holders: readonly RefTip[]): Map<string, string> {
  const marks = new Map<string, string>();
  for (const holder of holders) {
    const stack = [holder.sha];
    while (stack.length > 0) {
      const sha = stack.pop() as string;
      if (marks.has(sha) || !graph.has(sha)) continue;
      marks.set(sha, holder.name);
      for (const parent of graph.get(sha) ?? []) stack.push(parent);
    }
  }
  return marks;
}

export type Holding =
  /** In the target's history, or in a holder's: `ref` names which. */
  { held: true; ref: string } | { held: false; unique: number };

/** Whether every commit of `tip` is held, and by which ref; else how many commits are not. */
export function holdingOf(
  graph: Graph,
  tip: string,
  /** The integration target's ref name; the graph was read excluding its history. */
  target: string | null,
  marks: ReadonlyMap<string, string>,
): Holding {
  if (!graph.has(tip)) {
    // Outside the graph means in the target's history; with no target every tip is in the graph.
    return target === null ? { held: false, unique: 1 } : { held: true, ref: target };
  }
  const holder = marks.get(tip);
  if (holder !== undefined) return { held: true, ref: holder };
  let unique = 0;
  for (const sha of ancestorsInGraph(graph, tip)) if (!marks.has(sha)) unique++;
  return { held: false, unique };
}

/** The children of each graph commit, for walks toward the tips. */
export function childrenOf(graph: Graph): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const [sha, parents] of graph) {
    for (const parent of parents) {
      const list = children.get(parent);
      if (list) list.push(sha);
      else children.set(parent, [sha]);
    }
  }
  return children;
}

/**
 * Refs whose tips contain `tip` (have it in their history), excluding refs at the same commit: the
 * candidates of the containing-ref proof. Read in the graph, walking from the tip to its
 * descendants; a ref in the target's history never contains a tip outside it.
 */
export function containingRefs(
  graph: Graph,
  children: ReadonlyMap<string, readonly string[]>,
  tip: string,
  refs: readonly RefTip[],
): RefTip[] {
  if (!graph.has(tip)) return [];
  const descendants = new Set<string>();
  const stack = [...(children.get(tip) ?? [])];
  while (stack.length > 0) {
    const sha = stack.pop() as string;
    if (descendants.has(sha)) continue;
    descendants.add(sha);
    for (const child of children.get(sha) ?? []) stack.push(child);
  }
  return refs.filter((ref) => ref.sha !== tip && descendants.has(ref.sha));
}
