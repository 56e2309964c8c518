import { describe, expect, it } from 'vitest';
import {
  clippedLine,
  clipText,
  cutLine,
  plainLine,
  plainStrings,
  squeezedLine,
} from '../../../../service/core/text/text-clean.js';

// The one text-cleaning module: each helper's difference from its neighbours, on hostile input.
const HOSTILE = '\u001b[31mred\u001b[0m\tand\r\n\u001b]0;title\u0007 \u009b2Jend  ';

describe('text-clean', () => {
  it('plainLine removes escapes whole and folds each run of controls to one space', () => {
    expect(plainLine(HOSTILE)).toBe('red and  end  ');
  });

  it('squeezedLine also squeezes whitespace and trims; clippedLine does not', () => {
    expect(squeezedLine(HOSTILE, 100)).toBe('red and end');
    expect(clippedLine(HOSTILE, 100)).toBe('red and  end  ');
  });

  it('cuts at max with an ellipsis, counting it', () => {
    expect(cutLine('abcdef', 4)).toBe('abc…');
    expect(cutLine('abcd', 4)).toBe('abcd');
    expect(squeezedLine(`  ${'x'.repeat(300)}  `, 160)).toBe(`${'x'.repeat(159)}…`);
    expect(clippedLine('\u001b[1mabcdef', 4)).toBe('abc…');
  });

  it('clipText never splits a surrogate pair; cutLine does not promise that', () => {
    expect(clipText('ab😀cd', 4)).toBe('ab…');
    expect(cutLine('ab😀cd', 4)).toBe('ab\ud83d…');
  });
  it('plainStrings makes every string of a document a plainLine, keys too, and keeps the rest', () => {
    const doc = JSON.parse(
      JSON.stringify({
        a: HOSTILE,
        n: 1.5,
        b: [true, null, HOSTILE, [HOSTILE]],
        'k\u001b[2J\u202e': { deep: 'x\u200by' },
      }),
    );
    expect(plainStrings(doc)).toEqual({
      a: 'red and  end  ',
      n: 1.5,
      b: [true, null, 'red and  end  ', ['red and  end  ']],
      k: { deep: 'xy' },
    });
  });

  it('plainStrings keeps a __proto__ key a key, and cuts nesting no document has', () => {
    const cleaned = plainStrings(JSON.parse('{"__proto__": {"polluted": "yes"}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(cleaned)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(cleaned)).toEqual(['__proto__']);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let cut = plainStrings(deep);
    let depth = 0;
    while (Array.isArray(cut)) {
      cut = cut[0];
      depth++;
    }
    expect(cut).toBeNull();
    expect(depth).toBe(32);
  });
});
