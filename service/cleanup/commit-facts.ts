// Gathers what the loss rule needs to know about commits, for every tip of one repository at once,
// in a fixed handful of git processes: one rev-list for the graph outside the default branch, one
// for the window where applying commits are searched, one diff-tree for every run and candidate,
// and one merge-tree (plus ls-tree) for the content questions. Containing refs are a second round
// of the same, checked directly: a containing ref's own containing refs are never followed.

import {
  childrenOf,
  containingRefs,
  type Graph,
  holderIndex,
  holdingOf,
  type RefTip,
} from '../core/cleanup/loss-commits.js';
import {
  CANDIDATE_WINDOW,
  type Candidate,
  candidatesOf,
  type DiffLookup,
  diffKey,
  diffPairsOfPlans,
  evaluateIntegration,
  type IntegrationPlan,
  integrationPlanner,
  type TargetWindow,
} from '../core/cleanup/loss-integration.js';
import { commitsVerdict } from '../core/cleanup/loss-rule.js';
import type {
  AppliedRun,
  CommitsProof,
  CommitsVerdict,
  MergeAnswer,
  TreeDiff,
} from '../core/cleanup/loss-types.js';
import { messageOf } from '../core/common/errors.js';
import { diffTrees } from '../git/diff.js';
import { type CommitGraph, readGraph, readWindow } from '../git/graph.js';
import type { DefaultBranch, GitRef } from '../git/refs.js';
import type { GitIO } from '../git/run-git.js';
import { answerMerges } from '../git/three-way.js';

/** `env` and `signal` (GitIO) are every git call's environment and deadline. */
export interface CommitFactsInput extends GitIO {
  cwd: string;
  objectDir: string;
  refs: readonly GitRef[];
  defaultBranch: DefaultBranch;
  /** False after a failed fetch: then only the default branch holds commits. */
  fetchOk: boolean;
  /** The commits to judge: branch tips and worktree HEADs. */
  tips: readonly string[];
  /**
   * The default branch's window as `readTargetWindow` started it for these refs, when the caller
   * started it early (a survey, while it reads its checkouts); else it is read when needed.
   */
  window?: Promise<CommitGraph | null>;
}

/**
 * The window of the default branch where applying commits are searched: it needs only the refs, so
 * a survey starts it beside its checkout reads instead of after the commit graph. Null without a
 * default branch.
 */
export function readTargetWindow(
  cwd: string,
  defaultBranch: DefaultBranch,
  io: GitIO,
): Promise<CommitGraph> | null {
  return defaultBranch.target === null ? null : readWindow(cwd, defaultBranch.target, CANDIDATE_WINDOW, io);
}

export interface CommitFacts {
  /** Keyed by tip. */
  verdicts: Map<string, CommitsVerdict>;
  /** Problems that made some proofs impossible (each keeps its tips, never removes them). */
  warnings: string[];
}

/** The git calls' environment and deadline, without the rest of the input. */
const gitOf = (input: CommitFactsInput): GitIO => ({ env: input.env, signal: input.signal });

const isDefault = (ref: GitRef, defaults: DefaultBranch): boolean => defaults.refs.includes(ref.name);

export async function gatherCommitFacts(input: CommitFactsInput): Promise<CommitFacts> {
  const { refs, defaultBranch } = input;
  const byName = new Map(refs.map((ref) => [ref.name, ref]));
  const target = defaultBranch.target === null ? undefined : byName.get(defaultBranch.target);
  const plain = refs.filter((ref) => ref.symref === null && !isDefault(ref, defaultBranch));
  const remote = plain.filter((ref) => ref.name.startsWith('refs/remotes/'));
  const holders: RefTip[] = [
    ...defaultBranch.refs.flatMap((name) => {
      const ref = byName.get(name);
      return ref ? [{ name, sha: ref.sha }] : [];
    }),
    ...(input.fetchOk ? remote.map(({ name, sha }) => ({ name, sha })) : []),
  ];
  const containers: RefTip[] = plain.map(({ name, sha }) => ({ name, sha }));
  const tips = [...new Set(input.tips)];
  const facts: CommitFacts = { verdicts: new Map(), warnings: [] };
  if (tips.length === 0) return facts;

  const graph = await readGraph(
    input.cwd,
    [...tips, ...holders.map((h) => h.sha), ...containers.map((c) => c.sha)],
    target ? [target.sha] : [],
    gitOf(input),
  );
  const edges: Graph = graph.parents;
  const marks = holderIndex(edges, holders);
  const holding = new Map(tips.map((tip) => [tip, holdingOf(edges, tip, target?.name ?? null, marks)]));
  const heldBy = (tip: string): string | null => {
    const h = holding.get(tip);
    return h?.held ? h.ref : null;
  };

  const integration = new Map<string, CommitsProof>();
  // Work held only by a remote branch is still checked for integration: "landed by squash" is the
  // proof a user acts on, and whether a branch landed must not depend on whether it was pushed.
  const inDefault = (tip: string): boolean => {
    const ref = heldBy(tip);
    return ref !== null && defaultBranch.refs.includes(ref);
  };
  const open = tips.filter((tip) => !inDefault(tip));
  if (target && open.length > 0) {
    try {
      await integrate(input, target.name, edges, open, containers, integration);
    } catch (error) {
      facts.warnings.push(`cannot check integration: ${messageOf(error)}`);
    }
  }
  for (const tip of tips) {
    const h = holding.get(tip);
    facts.verdicts.set(
      tip,
      commitsVerdict({
        heldBy: heldBy(tip),
        defaultRefs: defaultBranch.refs,
        unique: h && !h.held ? h.unique : 0,
        integration: integration.get(tip) ?? null,
        fetchFailed: !input.fetchOk,
      }),
    );
  }
  return facts;
}

/** Direct integration of `open` tips, then the containing-ref proof for those still open. */
async function integrate(
  input: CommitFactsInput,
  targetName: string,
  graph: Graph,
  open: readonly string[],
  containers: readonly RefTip[],
  proofs: Map<string, CommitsProof>,
): Promise<void> {
  const windowGraph =
    (await input.window) ?? (await readWindow(input.cwd, targetName, CANDIDATE_WINDOW, gitOf(input)));
  const window: TargetWindow = { order: windowGraph.order, parents: windowGraph.parents };
  const plan = integrationPlanner(graph, window);
  const direct = await directRuns(input, plan, open);
  for (const [tip, runs] of direct) proofs.set(tip, { kind: 'applied', ref: targetName, runs });

  const children = childrenOf(graph);
  const stillOpen = open.filter((tip) => !direct.has(tip));
  const containing = new Map(stillOpen.map((tip) => [tip, containingRefs(graph, children, tip, containers)]));
  const containerTips = [...new Set([...containing.values()].flatMap((list) => list.map((ref) => ref.sha)))];
  if (containerTips.length === 0) return;
  const containerRuns = await directRuns(input, plan, containerTips);
  for (const [tip, list] of containing) {
    const integrated = list.find((ref) => containerRuns.has(ref.sha));
    const runs = integrated ? containerRuns.get(integrated.sha) : undefined;
    if (integrated && runs) {
      proofs.set(tip, {
        kind: 'contained',
        ref: integrated.name,
        by: { kind: 'applied', ref: targetName, runs },
      });
    }
  }
}

/** Applied runs of each tip that has them, from one diff-tree and at most one merge-tree. */
async function directRuns(
  input: CommitFactsInput,
  plan: (tip: string) => IntegrationPlan,
  tips: readonly string[],
): Promise<Map<string, AppliedRun[]>> {
  const plans = tips.map(plan).filter((planned) => planned.runs.length > 0);
  const result = new Map<string, AppliedRun[]>();
  if (plans.length === 0) return result;
  const diffs = await diffTrees(input.cwd, diffPairsOfPlans(plans), gitOf(input));
  const lookup = diffLookup(plans, diffs);
  const answers = new Map<string, MergeAnswer>();
  let evaluations = plans.map((plan) => evaluateIntegration(plan, lookup, answers));
  const questions = evaluations.flatMap((evaluation) =>
    evaluation.runs === null ? evaluation.questions : [],
  );
  if (questions.length > 0) {
    for (const [key, answer] of await answerMerges(input.cwd, input.objectDir, questions, gitOf(input))) {
      answers.set(key, answer);
    }
    evaluations = plans.map((plan) => evaluateIntegration(plan, lookup, answers));
  }
  plans.forEach((planned, index) => {
    const runs = evaluations[index]?.runs;
    if (runs) result.set(planned.tip, runs);
  });
  return result;
}

function diffLookup(plans: readonly IntegrationPlan[], diffs: ReadonlyMap<string, TreeDiff>): DiffLookup {
  const touching = new Map<string, Candidate[]>();
  for (const candidate of candidatesOf(plans)) {
    const diff = diffs.get(diffKey({ from: candidate.parent, to: candidate.commit }));
    for (const path of diff?.keys() ?? []) {
      const list = touching.get(path);
      if (list) list.push(candidate);
      else touching.set(path, [candidate]);
    }
  }
  return {
    diff: (pair) => diffs.get(diffKey(pair)),
    touching: (path) => touching.get(path) ?? [],
  };
}
