import { describe, expect, test } from 'vitest';
import {
  contains,
  hasCachedirSignature,
  owningCheckout,
  type TargetFacts,
  targetVerdict,
} from '../../../../service/core/cleanup/target-rule.js';

const MAIN = '/home/ada/repo';
const NESTED = '/home/ada/repo/.worktrees/feat-a';
const OUTSIDE = '/home/ada/wt/feat-b';

const none: TargetFacts = {
  checkouts: [MAIN, NESTED, OUTSIDE],
  workspaceCheckouts: [],
  busyPaths: [],
  removedCheckouts: [],
};

const mainTarget = { path: `${MAIN}/target`, checkout: MAIN };
const nestedTarget = { path: `${NESTED}/target`, checkout: NESTED };

describe('targetVerdict', () => {
  test('a target nobody works in is removable', () => {
    expect(targetVerdict(mainTarget, none)).toEqual({ kind: 'removable' });
  });

  test('a Herdr workspace showing the checkout keeps it', () => {
    expect(targetVerdict(mainTarget, { ...none, workspaceCheckouts: [MAIN] })).toEqual({
      kind: 'keep',
      reason: `a Herdr workspace shows ${MAIN}`,
    });
  });

  test('a pane or process working anywhere inside the checkout keeps it, the target itself included', () => {
    for (const cwd of [MAIN, `${MAIN}/src/deep`, `${MAIN}/target/debug`, `${MAIN}/`]) {
      expect(targetVerdict(mainTarget, { ...none, busyPaths: [cwd] })).toEqual({
        kind: 'keep',
        reason: `a pane or process works in ${MAIN}`,
      });
    }
  });

  test('work in a linked worktree nested in the main checkout holds that worktree, not the main checkout', () => {
    const facts = { ...none, busyPaths: [`${NESTED}/src`], workspaceCheckouts: [NESTED] };
    expect(targetVerdict(mainTarget, facts)).toEqual({ kind: 'removable' });
    expect(targetVerdict(nestedTarget, facts).kind).toBe('keep');
  });

  test('work in the main checkout does not hold a nested worktree', () => {
    expect(targetVerdict(nestedTarget, { ...none, busyPaths: [MAIN] })).toEqual({ kind: 'removable' });
  });

  test('a sibling path that only shares a prefix is not inside', () => {
    expect(targetVerdict(mainTarget, { ...none, busyPaths: ['/home/ada/repo-old/src'] })).toEqual({
      kind: 'removable',
    });
  });

  test('a worktree that the same plan removes takes its target with it', () => {
    const facts = { ...none, removedCheckouts: [NESTED], busyPaths: [NESTED] };
    expect(targetVerdict(nestedTarget, facts)).toEqual({
      kind: 'omitted',
      reason: `removed with worktree ${NESTED}`,
    });
  });

  test('the target checkout counts even when the caller did not list it among the checkouts', () => {
    const facts = { ...none, checkouts: [], busyPaths: [`${OUTSIDE}/x`] };
    expect(targetVerdict({ path: `${OUTSIDE}/target`, checkout: OUTSIDE }, facts).kind).toBe('keep');
  });
});

describe('path attribution', () => {
  test('the deepest containing checkout owns a path', () => {
    expect(owningCheckout(`${NESTED}/a`, [MAIN, NESTED])).toBe(NESTED);
    expect(owningCheckout(`${MAIN}/a`, [MAIN, NESTED])).toBe(MAIN);
    expect(owningCheckout('/elsewhere', [MAIN, NESTED])).toBeNull();
  });

  test('containment is by whole path components', () => {
    expect(contains('/a/b', '/a/b')).toBe(true);
    expect(contains('/a/b', '/a/b/c')).toBe(true);
    expect(contains('/a/b', '/a/bc')).toBe(false);
    expect(contains('/', '/a')).toBe(true);
  });
});

describe('hasCachedirSignature', () => {
  test('needs the signature at the very start', () => {
    expect(hasCachedirSignature('Signature: 8a477f597d28d172789f06886806bc55\n# comment')).toBe(true);
    expect(hasCachedirSignature('Signature: 8a477f597d28d172789f06886806bc55')).toBe(true);
    expect(hasCachedirSignature(' Signature: 8a477f597d28d172789f06886806bc55')).toBe(false);
    expect(hasCachedirSignature('Signature: 8a477f597d28d172789f06886806bc5')).toBe(false);
    expect(hasCachedirSignature('')).toBe(false);
  });
});
