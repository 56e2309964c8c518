// DogsledError is recognised across the copies each bundle carries (a hot bundle and its cold files,
// scripts/build.mjs): by a brand in the global symbol registry, while subclasses keep the ordinary
// prototype test.
import { describe, expect, it } from 'vitest';
import { DogsledError } from '../../../service/core/common/errors.js';
import { HERDR_CODES, TerminalError } from '../../../service/terminal/terminal-errors.js';

describe('DogsledError across bundle copies', () => {
  it("recognises another copy's error by its brand", () => {
    // What another bundle's copy of the class makes: its own prototype, the same registered symbol.
    class OtherCopy extends Error {}
    Object.defineProperty(OtherCopy.prototype, Symbol.for('dogsled.DogsledError'), { value: true });
    expect(new OtherCopy('x') instanceof DogsledError).toBe(true);
    expect(new Error('x') instanceof DogsledError).toBe(false);
    expect((null as unknown as object) instanceof DogsledError).toBe(false);
    expect({ message: 'x' } instanceof DogsledError).toBe(false);
  });

  it('a subclass is still tested by its prototype', () => {
    const terminal = new TerminalError(HERDR_CODES[0], 'x');
    expect(terminal instanceof DogsledError).toBe(true);
    expect(terminal instanceof TerminalError).toBe(true);
    expect(new DogsledError('x') instanceof TerminalError).toBe(false);
  });
});
