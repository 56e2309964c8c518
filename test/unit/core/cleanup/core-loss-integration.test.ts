import { describe, expect, it } from 'vitest';
import {
  applies,
  candidatesOf,
  type DiffLookup,
  diffKey,
  diffPairsOf,
  diffPairsOfPlans,
  evaluateIntegration,
  type IntegrationPlan,
  integrationPlanner,
  MAX_SPLIT_COMMITS,
  planIntegration,
  questionKey,
  type TargetWindow,
} from '../../../../service/core/cleanup/loss-integration.js';
import type { BlobState, MergeAnswer, TreeDiff } from '../../../../service/core/cleanup/loss-types.js';

const blob = (oid: string, mode = '100644'): BlobState => ({ mode, oid });
/** { path: [before, after] } with oids (or null for absent). */
function diff(spec: Record<string, [string | BlobState | null, string | BlobState | null]>): TreeDiff {
  const side = (value: string | BlobState | null) => (typeof value === 'string' ? blob(value) : value);
  return new Map(
    Object.entries(spec).map(([path, [before, after]]) => [
      path,
      { before: side(before), after: side(after) },
    ]),
  );
}
const NONE = new Map<string, MergeAnswer>();

// Target: X ← K1 ← K2. Branch: X ← c1 ← c2.
const graph = new Map([
  ['c2', ['c1']],
  ['c1', ['X']],
]);
const window: TargetWindow = {
  order: ['K2', 'K1', 'X'],
  parents: new Map([
    ['K2', ['K1']],
    ['K1', ['X']],
    ['X', []],
  ]),
};

function lookup(plan: IntegrationPlan, diffs: Record<string, TreeDiff>): DiffLookup {
  const table = new Map(Object.entries(diffs));
  return {
    diff: (pair) => table.get(diffKey(pair)),
    touching: (path) =>
      plan.candidates.filter((c) => table.get(diffKey({ from: c.parent, to: c.commit }))?.has(path)),
  };
}

describe('planning', () => {
  it('takes the first-parent chain, every consecutive run, and the default-branch commits after the fork', () => {
    const plan = planIntegration(graph, window, 'c2');
    expect(plan.chain).toEqual(['c1', 'c2']);
    expect(plan.candidates).toEqual([
      { commit: 'K2', parent: 'K1' },
      { commit: 'K1', parent: 'X' },
    ]);
    expect(plan.runs).toEqual([
      { base: 'X', first: 0, last: 0 },
      { base: 'X', first: 0, last: 1 },
      { base: 'c1', first: 1, last: 1 },
    ]);
  });

  it('after a merge from the default branch, also tries the whole branch from the merge base', () => {
    // Branch: X ← c1 ← m (merges Y) ← c3; target: X ← Y ← K.
    const merged = new Map([
      ['c3', ['m']],
      ['m', ['c1', 'Y']],
      ['c1', ['X']],
    ]);
    const target: TargetWindow = {
      order: ['K', 'Y', 'X'],
      parents: new Map([
        ['K', ['Y']],
        ['Y', ['X']],
        ['X', []],
      ]),
    };
    const plan = planIntegration(merged, target, 'c3');
    expect(plan.candidates).toEqual([{ commit: 'K', parent: 'Y' }]);
    expect(plan.runs).toContainEqual({ base: 'Y', first: 0, last: 2 });
  });

  it('tries only the whole branch when it is too long to split', () => {
    const long = new Map<string, string[]>();
    for (let i = 1; i <= MAX_SPLIT_COMMITS + 1; i++) long.set(`c${i}`, [i === 1 ? 'X' : `c${i - 1}`]);
    const plan = planIntegration(long, window, `c${MAX_SPLIT_COMMITS + 1}`);
    expect(plan.runs).toEqual([{ base: 'X', first: 0, last: MAX_SPLIT_COMMITS }]);
  });
  it('plans tips that meet the target at the same commits from one candidate list, as each alone', () => {
    // Two branches from X (c2, d1) and one from K1 (e1); target: X ← K1 ← K2.
    const many = new Map([
      ['c2', ['c1']],
      ['c1', ['X']],
      ['d1', ['X']],
      ['e1', ['K1']],
    ]);
    const plan = integrationPlanner(many, window);
    const plans = ['c2', 'd1', 'e1'].map(plan);
    for (const planned of plans) {
      const { allowed, ...alone } = planIntegration(many, window, planned.tip);
      expect({ ...planned, allowed: undefined }).toEqual({ ...alone, allowed: undefined });
      expect(allowed).toEqual(new Set(planned.candidates.map((candidate) => candidate.commit)));
    }
    expect(plans[0]?.candidates).toBe(plans[1]?.candidates);
    expect(plans[2]?.candidates).toEqual([{ commit: 'K2', parent: 'K1' }]);
    expect(candidatesOf(plans)).toEqual([
      { commit: 'K2', parent: 'K1' },
      { commit: 'K1', parent: 'X' },
    ]);
    // Every pair each plan needs, each once.
    const each = new Set(plans.flatMap(diffPairsOf).map(diffKey));
    const once = diffPairsOfPlans(plans).map(diffKey);
    expect(new Set(once)).toEqual(each);
    expect(once).toHaveLength(each.size);
  });
});

describe('applying one run', () => {
  it('a candidate that takes the run side of every path applies it', () => {
    expect(applies(diff({ a: ['a0', 'a1'] }), diff({ a: ['a0', 'a1'], other: ['o0', 'o1'] }), NONE)).toEqual({
      kind: 'yes',
    });
    expect(applies(diff({ gone: ['g0', null] }), diff({ gone: ['g0', null] }), NONE)).toEqual({
      kind: 'yes',
    });
  });

  it('must change every net path, to the run content', () => {
    expect(applies(diff({ a: ['a0', 'a1'], b: ['b0', 'b1'] }), diff({ a: ['a0', 'a1'] }), NONE)).toEqual({
      kind: 'no',
    });
    expect(applies(diff({ a: ['a0', 'a1'] }), diff({ a: ['a0', 'a2'] }), NONE)).toEqual({ kind: 'no' });
    // The parent already had the run's content: this candidate did not apply it.
    expect(applies(diff({ a: ['a0', 'a1'] }), diff({ a: ['a1', 'a2'] }), NONE)).toEqual({ kind: 'no' });
  });

  it('an empty net diff is never applied', () => {
    expect(applies(new Map(), diff({ a: ['a0', 'a1'] }), NONE)).toEqual({ kind: 'no' });
  });

  it('an addition, deletion or mode change against a differently changed path conflicts', () => {
    expect(applies(diff({ a: [null, 'a1'] }), diff({ a: ['aM', 'a1'] }), NONE)).toEqual({ kind: 'no' });
    expect(applies(diff({ a: ['a0', null] }), diff({ a: ['aM', null] }), NONE)).toEqual({ kind: 'no' });
    expect(applies(diff({ a: [blob('a0'), blob('a1', '100755')] }), diff({ a: ['aM', 'aK'] }), NONE)).toEqual(
      { kind: 'no' },
    );
    expect(
      applies(
        diff({ l: [blob('l0', '120000'), blob('l1', '120000')] }),
        diff({ l: [blob('lM', '120000'), blob('lK', '120000')] }),
        NONE,
      ),
    ).toEqual({
      kind: 'no',
    });
  });

  it('a content change on both sides is a question for Git, decided by its answer', () => {
    const net = diff({ a: ['a0', 'a1'] });
    const candidate = diff({ a: ['aM', 'aK'] });
    const question = { mode: '100644', base: 'a0', ours: 'aM', theirs: 'a1' };
    expect(applies(net, candidate, NONE)).toEqual({ kind: 'ask', questions: [question] });
    const merged = new Map<string, MergeAnswer>([[questionKey(question), { conflict: false, merged: 'aK' }]]);
    expect(applies(net, candidate, merged)).toEqual({ kind: 'yes' });
    const other = new Map<string, MergeAnswer>([[questionKey(question), { conflict: false, merged: 'aX' }]]);
    expect(applies(net, candidate, other)).toEqual({ kind: 'no' });
    const conflict = new Map<string, MergeAnswer>([[questionKey(question), { conflict: true }]]);
    expect(applies(net, candidate, conflict)).toEqual({ kind: 'no' });
  });
});

describe('covering the branch with runs', () => {
  const plan = planIntegration(graph, window, 'c2');

  it('one squash applies the whole branch as one run', () => {
    const evaluation = evaluateIntegration(
      plan,
      lookup(plan, {
        'X..c2': diff({ a: ['a0', 'a1'], b: ['b0', 'b1'] }),
        'X..c1': diff({ a: ['a0', 'a1'] }),
        'c1..c2': diff({ b: ['b0', 'b1'] }),
        'K1..K2': diff({ z: ['z0', 'z1'] }),
        'X..K1': diff({ a: ['a0', 'a1'], b: ['b0', 'b1'] }),
      }),
      NONE,
    );
    expect(evaluation).toEqual({
      runs: [{ base: 'X', first: 'c1', last: 'c2', commits: 2, by: 'K1' }],
      questions: [],
    });
  });

  it('a stack landed as two squashes is two runs, oldest first', () => {
    const evaluation = evaluateIntegration(
      plan,
      lookup(plan, {
        'X..c2': diff({ a: ['a0', 'a1'], b: ['b0', 'b1'] }),
        'X..c1': diff({ a: ['a0', 'a1'] }),
        'c1..c2': diff({ b: ['b0', 'b1'] }),
        'K1..K2': diff({ b: ['b0', 'b1'] }),
        'X..K1': diff({ a: ['a0', 'a1'] }),
      }),
      NONE,
    );
    expect(evaluation.runs).toEqual([
      { base: 'X', first: 'c1', last: 'c1', commits: 1, by: 'K1' },
      { base: 'c1', first: 'c2', last: 'c2', commits: 1, by: 'K2' },
    ]);
  });

  it('returns the open questions while nothing covers the branch, and no runs', () => {
    const evaluation = evaluateIntegration(
      plan,
      lookup(plan, {
        'X..c2': diff({ a: ['a0', 'a1'] }),
        'X..c1': diff({ a: ['a0', 'a1'] }),
        'c1..c2': new Map(),
        'K1..K2': diff({ a: ['aM', 'aK'] }),
        'X..K1': diff({ a: ['a0', 'aM'] }),
      }),
      NONE,
    );
    expect(evaluation.runs).toBeNull();
    expect(evaluation.questions).toEqual([{ mode: '100644', base: 'a0', ours: 'aM', theirs: 'a1' }]);
  });
});
