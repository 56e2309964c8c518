// The pane rule and the fake Herdr must agree on what an available shell is (Herdr's list, CONTRACT
// §4.1): a shell the fake accepts but the rule does not know would let a test pass that real Herdr
// fails, and the reverse would hide a pane the rule should close.

import { describe, expect, it } from 'vitest';
import { KNOWN_SHELLS } from '../../../service/core/cleanup/pane-rule.js';
// @ts-expect-error the fake Herdr is plain JavaScript without types
import { SHELLS } from '../../fakes/herdr/lib/detect.mjs';

describe('available shells', () => {
  it('are the same names in the pane rule and the fake Herdr', () => {
    expect([...KNOWN_SHELLS].sort()).toEqual([...(SHELLS as string[])].sort());
  });
});
