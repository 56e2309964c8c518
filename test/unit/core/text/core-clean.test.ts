// The one text vocabulary (service/core/text/clean.ts): each name's difference from its neighbours,
// on hostile input, and the cases where the helpers it replaced differed (a cut that split a
// surrogate pair, a run of newlines or tabs that stayed several spaces, a deep MCP answer).
import { describe, expect, it } from 'vitest';
import {
  clip,
  clipPoints,
  clipStart,
  cutAt,
  plainLine,
  plainStrings,
  quoted,
  quotedBytes,
  quotedVisible,
  squeezedLine,
  stripEscapes,
  strippedStrings,
} from '../../../../service/core/text/clean.js';

const HOSTILE = '\u001b[31mred\u001b[0m\tand\r\n\u001b]0;title\u0007 \u009b2Jend  ';

describe('the one-line forms', () => {
  it('stripEscapes keeps newlines and tabs; plainLine folds each run of them to one space', () => {
    expect(stripEscapes(HOSTILE)).toBe('red\tand\n end  ');
    expect(plainLine(HOSTILE)).toBe('red and  end  ');
    // One space per run, not per character: doctor's and Pi's own helpers made "a  b" of these.
    expect(plainLine('a\n\nb\t\tc\r\n\td')).toBe('a b c d');
  });

  it('squeezedLine also squeezes every whitespace run, trims, and clips at 160 unless told', () => {
    expect(squeezedLine(HOSTILE)).toBe('red and end');
    expect(squeezedLine(`  ${'x'.repeat(300)}  `)).toBe(`${'x'.repeat(159)}…`);
    expect(squeezedLine(`  ${'x'.repeat(300)}  `, 20)).toBe(`${'x'.repeat(19)}…`);
  });
});

describe('clip and cutAt', () => {
  it('clip keeps text that fits and marks a cut with … inside the bound', () => {
    expect(clip('abcd', 4)).toBe('abcd');
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip('abcdef', 1)).toBe('…');
    expect(clip('abcdef', 0)).toBe('…');
  });

  it('never splits a surrogate pair, where the old cutLine, cli clip and Pi clips did', () => {
    expect(clip('ab😀cd', 4)).toBe('ab…');
    expect(clip('ab😀cd', 5)).toBe('ab😀…');
    expect(cutAt('ab😀cd', 3)).toBe('ab');
    expect(cutAt('ab😀cd', 4)).toBe('ab😀');
    expect(cutAt('abc', 10)).toBe('abc');
  });

  it('clipStart keeps the end, marks the cut with … first, and never splits a surrogate pair', () => {
    expect(clipStart('/home/ann', 9)).toBe('/home/ann');
    expect(clipStart('/home/ann/state', 8)).toBe('…n/state');
    expect(clipStart('ab😀cd', 4)).toBe('…cd');
    expect(clipStart('ab😀cd', 5)).toBe('…😀cd');
    expect(clipStart('abc', 0)).toBe('…');
  });
});

describe('the quoted forms', () => {
  it('quoted removes escapes whole, escapes its quotes, and clips at 80 unless told', () => {
    expect(quoted('x\u001b[2J"y"\ny')).toBe('"x\\"y\\" y"');
    expect(quoted('x'.repeat(100))).toBe(`"${'x'.repeat(79)}…"`);
    expect(quoted('ab😀cd', 4)).toBe('"ab…"');
  });

  it('quotedVisible spells every control character, C1 included, instead of removing it', () => {
    expect(quotedVisible('a\nb\u001b[31m\u009b"q"')).toBe('"a\\x0ab\\x1b[31m\\x9b\\"q\\""');
    expect(quotedVisible('x'.repeat(100), 10)).toBe(`"${'x'.repeat(9)}…"`);
  });

  it('quotedBytes spells every byte that is not printable ASCII, and the quote and backslash', () => {
    expect(quotedBytes(Buffer.from([0x66, 0xff, 0x22, 0x5c, 0x1b, 0x41]))).toBe('"f\\xff\\x22\\x5c\\x1bA"');
    expect(quotedBytes(Buffer.from('é', 'utf8'))).toBe('"\\xc3\\xa9"');
  });
});

describe('plainStrings and strippedStrings', () => {
  const doc = () =>
    JSON.parse(
      JSON.stringify({
        a: HOSTILE,
        n: 1.5,
        b: [true, null, HOSTILE, [HOSTILE]],
        'k\u001b[2J\u202e\n': { deep: 'x\u200by\nz' },
      }),
    );

  it('plainStrings makes every string a plainLine, keys too, and keeps the rest', () => {
    expect(plainStrings(doc())).toEqual({
      a: 'red and  end  ',
      n: 1.5,
      b: [true, null, 'red and  end  ', ['red and  end  ']],
      'k ': { deep: 'xy z' },
    });
  });

  it('strippedStrings keeps newlines and tabs in values, and makes keys a plainLine', () => {
    expect(strippedStrings(doc())).toEqual({
      a: 'red\tand\n end  ',
      n: 1.5,
      b: [true, null, 'red\tand\n end  ', ['red\tand\n end  ']],
      'k ': { deep: 'xy\nz' },
    });
  });

  it('give what a fromEntries copy of each object gives: key order, keys that clean alike, numbers', () => {
    // The walk as it was written first (fromEntries over entries), with plainLine's regex always run.
    const CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g;
    const line = (text: string): string => stripEscapes(text).replace(CONTROLS, ' ');
    const reference = (value: unknown, clean: (text: string) => string): unknown => {
      if (typeof value === 'string') return clean(value);
      if (value === null || typeof value !== 'object') return value;
      if (Array.isArray(value)) return value.map((item) => reference(item, clean));
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [line(key), reference(item, clean)]),
      );
    };
    const hostile = JSON.parse(
      JSON.stringify({
        z: 1,
        '10': 'ten\t',
        '2': ['two\r\n', { 'a\nb': 'x', 'a b': 'later, same key', 'a\u001b[1mb': 'third' }],
        'k\u0085': 'c1\u0085line',
        plain: 'no controls at all',
        tabs: '\t\t',
        e: '',
        nested: { '': null, f: false, n: -0.5 },
      }),
    );
    const plain = plainStrings(hostile);
    expect(plain).toEqual(reference(hostile, line));
    expect(JSON.stringify(plain)).toBe(JSON.stringify(reference(hostile, line)));
    const stripped = strippedStrings(hostile);
    expect(JSON.stringify(stripped)).toBe(JSON.stringify(reference(hostile, stripEscapes)));
    for (const text of ['', 'plain', 'a\tb', '\n', 'x\u009by', 'é\u202e\u0007', HOSTILE])
      expect(plainLine(text)).toBe(line(text));
  });

  it('both keep a __proto__ key a key, and cut nesting no document has at 32 levels', () => {
    for (const clean of [plainStrings, strippedStrings]) {
      const cleaned = clean(JSON.parse('{"__proto__": {"polluted": "yes"}}')) as Record<string, unknown>;
      expect(Object.getPrototypeOf(cleaned)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.keys(cleaned)).toEqual(['__proto__']);
      let deep: unknown = 'bottom';
      for (let i = 0; i < 100_000; i++) deep = [deep];
      let cut = clean(deep);
      let depth = 0;
      while (Array.isArray(cut)) {
        cut = cut[0];
        depth++;
      }
      expect(cut).toBeNull();
      expect(depth).toBe(32);
    }
  });
});

describe('clipPoints', () => {
  it('counts code points, so an emoji is one and is never split', () => {
    expect(clipPoints('😀😀😀', 3)).toBe('😀😀😀');
    expect(clipPoints('😀😀😀😀', 3)).toBe('😀😀…');
    // clip counts UTF-16 units: the same bound keeps one emoji there.
    expect(clip('😀😀😀😀', 3)).toBe('😀…');
    expect(clipPoints('abcdef', 1)).toBe('…');
    expect(clipPoints('abc', 0)).toBe('…');
  });
});
