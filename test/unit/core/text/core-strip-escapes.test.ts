import { describe, expect, it } from 'vitest';
import { stripEscapes } from '../../../../service/core/text/clean.js';

describe('stripEscapes', () => {
  it('leaves plain text, newlines, tabs and non-ASCII text untouched', () => {
    const text = 'héllo\tworld\n→ 日本語 🐕';
    expect(stripEscapes(text)).toBe(text);
  });

  it('removes CSI sequences such as colours, cursor moves and private modes', () => {
    expect(stripEscapes('\x1b[1;31mred\x1b[0m plain')).toBe('red plain');
    expect(stripEscapes('a\x1b[2Kb\x1b[10;20Hc\x1b[?1049hd\x1b[?25le')).toBe('abcde');
    expect(stripEscapes('x\x1b[38:2:255:0:0my')).toBe('xy');
  });

  it('removes the 8-bit CSI form', () => {
    expect(stripEscapes('a\x9b31mb')).toBe('ab');
  });

  it('removes OSC strings ended by BEL or by ST, such as titles and hyperlinks', () => {
    expect(stripEscapes('\x1b]0;my title\x07after')).toBe('after');
    expect(stripEscapes('\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\')).toBe('link');
    expect(stripEscapes('a\x9d2;t\x9cb')).toBe('ab');
  });

  it('removes DCS, SOS, PM and APC strings', () => {
    expect(stripEscapes('a\x1bPq#0;2;0;0;0\x1b\\b')).toBe('ab');
    expect(stripEscapes('a\x1bXsos\x1b\\b\x1b^pm\x1b\\c\x1b_apc\x1b\\d')).toBe('abcd');
    expect(stripEscapes('a\x90dcs\x9cb')).toBe('ab');
  });

  it('swallows an unterminated string sequence to the end rather than leaking it', () => {
    expect(stripEscapes('safe\x1b]0;evil title with no end')).toBe('safe');
    expect(stripEscapes('safe\x1bPdcs forever')).toBe('safe');
  });

  it('ends a string sequence at a new escape and strips that one too', () => {
    expect(stripEscapes('a\x1b]0;title\x1b[31mb')).toBe('ab');
  });

  it('removes single-character and charset escapes', () => {
    expect(stripEscapes('a\x1b7b\x1b8c\x1bcd\x1b=e\x1b>f')).toBe('abcdef');
    expect(stripEscapes('a\x1b(Bb\x1b)0c\x1b#8d')).toBe('abcd');
  });

  it('removes C0 controls other than newline and tab, DEL and C1 controls', () => {
    expect(stripEscapes('a\rb\x00c\x07d\x08e\x0bf\x0cg\x7fh\x85i\x84j')).toBe('abcdefghij');
    expect(stripEscapes('line one\r\nline two')).toBe('line one\nline two');
  });

  it('drops a lone escape at the end and an escape before a control character', () => {
    expect(stripEscapes('end\x1b')).toBe('end');
    expect(stripEscapes('a\x1b\nb')).toBe('a\nb');
    expect(stripEscapes('a\x1b[')).toBe('a');
  });

  it('stops a malformed CSI at the first foreign character and keeps that character', () => {
    expect(stripEscapes('a\x1b[12\nb')).toBe('a\nb');
    expect(stripEscapes('a\x1b[1é')).toBe('aé');
  });

  it('copes with long runs of broken sequences', () => {
    // The last CSI takes the first x as its final byte; the OSC run swallows itself.
    const hostile = '\x1b['.repeat(50_000) + 'x'.repeat(10) + '\x1b]'.repeat(50_000);
    expect(stripEscapes(hostile)).toBe('x'.repeat(9));
  });
  it('removes bidi overrides, embeddings, isolates and marks: the text reads in the order it runs', () => {
    // "Trojan source": U+202E makes `txt.exe` show as `exe.txt`.
    expect(stripEscapes('invoice\u202Etxt.exe')).toBe('invoicetxt.exe');
    expect(stripEscapes('a\u202Ab\u202Bc\u202Cd\u202De')).toBe('abcde');
    expect(stripEscapes('a\u2066b\u2067c\u2068d\u2069e')).toBe('abcde');
    expect(stripEscapes('a\u200Eb\u200Fc\u061Cd')).toBe('abcd');
  });

  it('removes zero-width characters, deprecated format controls and Unicode tags', () => {
    expect(stripEscapes('p\u200Ba\u200Cs\u200Ds\u2060w\uFEFFo\u180Er\u2063d')).toBe('password');
    expect(stripEscapes('a\u206Ab\u206Fc')).toBe('abc');
    // Tags spell ASCII invisibly (U+E0041 is a tag "A"): gone, whole pairs.
    expect(stripEscapes('ok\u{E0001}\u{E0041}\u{E0042}\u{E007F}!')).toBe('ok!');
  });

  it('keeps visible characters next to the invisible ranges', () => {
    const text = 'a\u2010b\u2029c\u2070d\u{E0100}e\u{1F600}f\u061Bg\uFEFEh';
    expect(stripEscapes(text)).toBe(text);
  });
});
