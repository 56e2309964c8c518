import { describe, expect, it } from 'vitest';
import {
  childrenOf,
  containingRefs,
  holderIndex,
  holdingOf,
} from '../../../../service/core/cleanup/loss-commits.js';

// Commits outside the target T: T ← a ← b ← c (local), b ← r (origin/feat), T ← x (unrelated).
const graph = new Map([
  ['a', ['T']],
  ['b', ['a']],
  ['c', ['b']],
  ['r', ['b']],
  ['x', ['T']],
]);
const holders = [
  { name: 'refs/heads/main', sha: 'x' },
  { name: 'refs/remotes/origin/feat', sha: 'r' },
];

describe('holding', () => {
  const marks = holderIndex(graph, holders);

  it('a tip outside the graph is in the target', () => {
    expect(holdingOf(graph, 'T', 'refs/remotes/origin/main', marks)).toEqual({
      held: true,
      ref: 'refs/remotes/origin/main',
    });
  });

  it('names the first holder whose history has the tip', () => {
    expect(holdingOf(graph, 'b', 'refs/remotes/origin/main', marks)).toEqual({
      held: true,
      ref: 'refs/remotes/origin/feat',
    });
    expect(holdingOf(graph, 'x', 'refs/remotes/origin/main', marks)).toEqual({
      held: true,
      ref: 'refs/heads/main',
    });
  });

  it('counts the commits no holder has', () => {
    expect(holdingOf(graph, 'c', 'refs/remotes/origin/main', marks)).toEqual({ held: false, unique: 1 });
    expect(holdingOf(graph, 'c', 'refs/remotes/origin/main', holderIndex(graph, []))).toEqual({
      held: false,
      unique: 3,
    });
  });
});

describe('containing refs', () => {
  it('are the refs whose history has the tip, never the refs at the tip itself', () => {
    const refs = [
      { name: 'refs/heads/c', sha: 'c' },
      { name: 'refs/remotes/origin/feat', sha: 'r' },
      { name: 'refs/heads/b', sha: 'b' },
      { name: 'refs/heads/x', sha: 'x' },
    ];
    expect(containingRefs(graph, childrenOf(graph), 'b', refs).map((ref) => ref.name)).toEqual([
      'refs/heads/c',
      'refs/remotes/origin/feat',
    ]);
    expect(containingRefs(graph, childrenOf(graph), 'T', refs)).toEqual([]);
  });
});
