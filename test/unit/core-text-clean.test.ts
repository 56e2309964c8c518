import { describe, expect, it } from 'vitest';
import { clippedLine, clipText, cutLine, plainLine, squeezedLine } from '../../service/core/text-clean.js';

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
});
