// Integration by applying commits (spec, "Cleanup"): a branch's commits split into consecutive runs,
// and each run needs one commit on the default branch that applies it. A run is judged by its net
// diff (paths with before and after objects), so merges from main and reverted edits do not enlarge
// it. A candidate must change every net path, and the exact three-way merge of the run into the
// candidate's parent must reproduce the candidate's content on each of them. Paths merge on their
// own; an addition, deletion or mode change against a differently changed path is a conflict, and
// renames are not followed: a doubtful run is never applied. One run is a merge, squash or
// cherry-pick; several runs are a stack. Content merges are questions Git answers (service/git).
//
// planIntegration says which diffs are needed; evaluateIntegration returns the questions it still
// needs answered, then, given the answers, the runs and their applying commits.

import { ancestorsInGraph, boundaryOf, type Graph } from './loss-commits.js';
import type { AppliedRun, MergeAnswer, MergeQuestion, PathChange, TreeDiff } from './loss-types.js';

/** Applying commits are searched among this many newest commits of the default branch. */
export const CANDIDATE_WINDOW = 1000;
/**
 * Branches with at most this many first-parent commits are tried in every split into runs (the
 * slices grow with the square of the length); longer ones only as one run.
 */
export const MAX_SPLIT_COMMITS = 24;

/** The newest commits of the target in topological order (children before parents). */
export interface TargetWindow {
  order: readonly string[];
  parents: ReadonlyMap<string, readonly string[]>;
}

export interface RunSpec {
  /** The run's net diff goes from `base` to chain[last]. */
  base: string;
  first: number;
  last: number;
}

export interface Candidate {
  commit: string;
  /** First parent: the three-way merge goes into it. */
  parent: string;
}

export interface IntegrationPlan {
  tip: string;
  /** First-parent commits of the tip that the target lacks, oldest first. */
  chain: string[];
  runs: RunSpec[];
  /** Shared between plans that meet the target at the same commits: never changed in place. */
  candidates: readonly Candidate[];
  /** The candidates' commits, when the planner made the set already. */
  allowed?: ReadonlySet<string>;
}

export interface DiffPair {
  from: string;
  to: string;
}

export function diffKey(pair: DiffPair): string {
  return `${pair.from}..${pair.to}`;
}

export function questionKey(question: MergeQuestion): string {
  return `${question.mode}:${question.base}:${question.ours}:${question.theirs}`;
}

function walkWindow(window: TargetWindow, from: string, into: Set<string>): void {
  const stack = [from];
  while (stack.length > 0) {
    const sha = stack.pop() as string;
    if (into.has(sha)) continue;
    const parents = window.parents.get(sha);
    if (parents === undefined) continue;
    into.add(sha);
    for (const parent of parents) stack.push(parent);
  }
}

/**
 * The single best common ancestor of the tip and the target, when the window can tell: the one
 * boundary commit that is not an ancestor of another. Null when there are several (criss-cross)
 * or the window does not reach them.
 */
function mergeBaseOf(boundary: ReadonlySet<string>, window: TargetWindow | null): string | null {
  const list = [...boundary];
  if (list.length === 1) return list[0] ?? null;
  if (window === null || list.some((sha) => !window.parents.has(sha))) return null;
  const below = new Set<string>();
  for (const sha of list)
    for (const parent of window.parents.get(sha) ?? []) walkWindow(window, parent, below);
  const maximal = list.filter((sha) => !below.has(sha));
  return maximal.length === 1 ? (maximal[0] ?? null) : null;
}

/** The runs to try and the commits that may apply them, for a tip outside the target. */
export function planIntegration(graph: Graph, window: TargetWindow | null, tip: string): IntegrationPlan {
  return integrationPlanner(graph, window)(tip);
}

/** What a tip's plan takes from where it meets the target: its candidates and merge base. */
interface Meeting {
  candidates: readonly Candidate[];
  allowed: ReadonlySet<string>;
  mergeBase: string | null;
}

/**
 * planIntegration for many tips of one graph and window. Tips that meet the target at the same
 * commits (most branches of a repository fork from a few) share one list of candidates and one
 * merge base: the window is walked once per meeting point, not once per tip.
 */
export function integrationPlanner(
  graph: Graph,
  window: TargetWindow | null,
): (tip: string) => IntegrationPlan {
  const meetings = new Map<string, Meeting>();
  /** One Candidate per window commit, shared by every list. */
  const candidateOf = new Map<string, Candidate>();
  const meetingAt = (boundary: ReadonlySet<string>, target: TargetWindow): Meeting => {
    const key = [...boundary].sort().join(' ');
    const known = meetings.get(key);
    if (known) return known;
    const reached = new Set<string>();
    for (const sha of boundary) walkWindow(target, sha, reached);
    const candidates: Candidate[] = [];
    for (const commit of target.order) {
      const parent = target.parents.get(commit)?.[0];
      if (parent === undefined || reached.has(commit)) continue;
      let candidate = candidateOf.get(commit);
      if (candidate === undefined) {
        candidate = { commit, parent };
        candidateOf.set(commit, candidate);
      }
      candidates.push(candidate);
    }
    const meeting: Meeting = {
      candidates,
      allowed: new Set(candidates.map((candidate) => candidate.commit)),
      mergeBase: candidates.length === 0 ? null : mergeBaseOf(boundary, target),
    };
    meetings.set(key, meeting);
    return meeting;
  };
  return (tip) => {
    const chain: string[] = [];
    let cursor: string | undefined = tip;
    while (cursor !== undefined && graph.has(cursor)) {
      chain.push(cursor);
      cursor = graph.get(cursor)?.[0];
    }
    chain.reverse();
    const chainBase = cursor;
    const plan: IntegrationPlan = { tip, chain, runs: [], candidates: [] };
    const n = chain.length;
    if (n === 0 || window === null) return plan;

    const meeting = meetingAt(boundaryOf(graph, ancestorsInGraph(graph, tip)), window);
    if (meeting.candidates.length === 0) return plan;
    plan.candidates = meeting.candidates;
    plan.allowed = meeting.allowed;

    if (chainBase !== undefined) {
      if (n <= MAX_SPLIT_COMMITS) {
        for (let first = 0; first < n; first++) {
          const base = first === 0 ? chainBase : (chain[first - 1] as string);
          for (let last = first; last < n; last++) plan.runs.push({ base, first, last });
        }
      } else {
        plan.runs.push({ base: chainBase, first: 0, last: n - 1 });
      }
    }
    // After a merge from the default branch, the whole branch's net diff starts at the merge base.
    const mergeBase = meeting.mergeBase;
    if (mergeBase !== null && mergeBase !== chainBase)
      plan.runs.push({ base: mergeBase, first: 0, last: n - 1 });
    return plan;
  };
}

/** Every diff the plan needs: each run's net diff and each candidate against its parent. */
export function diffPairsOf(plan: IntegrationPlan): DiffPair[] {
  const pairs: DiffPair[] = plan.runs.map((run) => ({ from: run.base, to: plan.chain[run.last] as string }));
  for (const candidate of plan.candidates) pairs.push({ from: candidate.parent, to: candidate.commit });
  return pairs;
}

/** The candidates of all the plans, each once (plans of one planner share their lists). */
export function candidatesOf(plans: readonly IntegrationPlan[]): Candidate[] {
  const lists = new Set(plans.map((plan) => plan.candidates));
  const seen = new Set<string>();
  const all: Candidate[] = [];
  for (const list of lists) {
    for (const candidate of list) {
      if (seen.has(candidate.commit)) continue;
      seen.add(candidate.commit);
      all.push(candidate);
    }
  }
  return all;
}

/** Every diff the plans need, each pair once: diffPairsOf of each plan, without the repeats. */
export function diffPairsOfPlans(plans: readonly IntegrationPlan[]): DiffPair[] {
  const pairs = new Map<string, DiffPair>();
  const add = (pair: DiffPair): void => {
    const key = diffKey(pair);
    if (!pairs.has(key)) pairs.set(key, pair);
  };
  for (const plan of plans) {
    for (const run of plan.runs) add({ from: run.base, to: plan.chain[run.last] as string });
  }
  for (const candidate of candidatesOf(plans)) add({ from: candidate.parent, to: candidate.commit });
  return [...pairs.values()];
}

export interface DiffLookup {
  diff(pair: DiffPair): TreeDiff | undefined;
  /** Candidates (of any plan) whose own diff changes `path`. */
  touching(path: string): readonly Candidate[];
}

export interface Evaluation {
  /** The runs covering the whole chain and their applying commits, or null when none is proven. */
  runs: AppliedRun[] | null;
  /** Content merges that would decide runs still open; empty once everything is answered. */
  questions: MergeQuestion[];
}

const REGULAR = new Set(['100644', '100755']);

function same(a: PathChange['before'], b: PathChange['before']): boolean {
  if (a === null || b === null) return a === b;
  return a.mode === b.mode && a.oid === b.oid;
}

type Applies = { kind: 'yes' } | { kind: 'no' } | { kind: 'ask'; questions: MergeQuestion[] };

/** Whether the candidate's change reproduces the run's net change on every net path. */
export function applies(
  net: TreeDiff,
  candidate: TreeDiff,
  answers: ReadonlyMap<string, MergeAnswer>,
): Applies {
  if (net.size === 0) return { kind: 'no' };
  const questions: MergeQuestion[] = [];
  for (const [path, change] of net) {
    const own = candidate.get(path);
    if (own === undefined) return { kind: 'no' };
    const base = change.before;
    const theirs = change.after;
    const ours = own.before;
    const result = own.after;
    if (same(ours, base)) {
      // Only the run changed this path: the merge takes the run's side.
      if (!same(result, theirs)) return { kind: 'no' };
      continue;
    }
    // The parent already had the run's content, so the candidate (which changes the path) did not apply it.
    if (same(ours, theirs)) return { kind: 'no' };
    // Both sides changed the path differently. Additions, deletions, mode changes and anything
    // but a regular file conflict: doubtful, so not applied.
    if (base === null || ours === null || theirs === null || result === null) return { kind: 'no' };
    if (base.mode !== ours.mode || base.mode !== theirs.mode || result.mode !== base.mode)
      return { kind: 'no' };
    if (!REGULAR.has(base.mode)) return { kind: 'no' };
    const question: MergeQuestion = { mode: base.mode, base: base.oid, ours: ours.oid, theirs: theirs.oid };
    const answer = answers.get(questionKey(question));
    if (answer === undefined) questions.push(question);
    else if (answer.conflict || answer.merged !== result.oid) return { kind: 'no' };
  }
  return questions.length > 0 ? { kind: 'ask', questions } : { kind: 'yes' };
}

/**
 * Finds the fewest runs that cover the chain, each applied by a candidate. Questions are returned
 * for every run that no candidate applies without one; call again with their answers.
 */
export function evaluateIntegration(
  plan: IntegrationPlan,
  lookup: DiffLookup,
  answers: ReadonlyMap<string, MergeAnswer>,
): Evaluation {
  const allowed = plan.allowed ?? new Set(plan.candidates.map((candidate) => candidate.commit));
  const applied = new Map<RunSpec, string>();
  const questions = new Map<string, MergeQuestion>();
  for (const run of plan.runs) {
    const net = lookup.diff({ from: run.base, to: plan.chain[run.last] as string });
    const first = net?.keys().next();
    if (net === undefined || first === undefined || first.done) continue;
    const asks: MergeQuestion[] = [];
    for (const candidate of lookup.touching(first.value)) {
      if (!allowed.has(candidate.commit)) continue;
      const own = lookup.diff({ from: candidate.parent, to: candidate.commit });
      if (own === undefined) continue;
      const verdict = applies(net, own, answers);
      if (verdict.kind === 'yes') {
        applied.set(run, candidate.commit);
        break;
      }
      if (verdict.kind === 'ask') asks.push(...verdict.questions);
    }
    if (!applied.has(run)) for (const question of asks) questions.set(questionKey(question), question);
  }
  return { runs: coverChain(plan, applied), questions: [...questions.values()] };
}

/** The fewest applied runs that split the chain into consecutive pieces, oldest first. */
function coverChain(plan: IntegrationPlan, applied: ReadonlyMap<RunSpec, string>): AppliedRun[] | null {
  const n = plan.chain.length;
  const best: (AppliedRun[] | null)[] = Array.from({ length: n + 1 }, () => null);
  best[0] = [];
  for (let end = 0; end < n; end++) {
    for (const [run, by] of applied) {
      if (run.last !== end) continue;
      const before = best[run.first];
      if (before === null || before === undefined) continue;
      const candidate: AppliedRun = {
        base: run.base,
        first: plan.chain[run.first] as string,
        last: plan.chain[run.last] as string,
        commits: run.last - run.first + 1,
        by,
      };
      const current = best[end + 1];
      if (current === null || current === undefined || before.length + 1 < current.length) {
        best[end + 1] = [...before, candidate];
      }
    }
  }
  return best[n] ?? null;
}
