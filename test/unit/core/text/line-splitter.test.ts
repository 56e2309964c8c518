import { describe, expect, test } from 'vitest';
import { LineSplitter } from '../../../../service/core/text/line-splitter.js';

const text = (lines: Buffer[]) => lines.map((line) => line.toString());

describe('LineSplitter', () => {
  test('joins a line split across chunks, byte by byte', () => {
    const splitter = new LineSplitter(100);
    const seen: string[] = [];
    for (const byte of Buffer.from('ab\ncd€\n\nlast')) seen.push(...text(splitter.push(Buffer.from([byte]))));
    expect(seen).toEqual(['ab', 'cd€', '']);
    expect(splitter.end()?.toString()).toBe('last');
    expect(splitter.end()).toBeUndefined();
  });

  test('drops a line longer than its cap whole, however many chunks it spans, and keeps the next', () => {
    const splitter = new LineSplitter(4);
    expect(text(splitter.push(Buffer.from('1234\n12')))).toEqual(['1234']);
    expect(text(splitter.push(Buffer.from('345')))).toEqual([]);
    expect(text(splitter.push(Buffer.from('678')))).toEqual([]);
    expect(text(splitter.push(Buffer.from('9\nok\n12345')))).toEqual(['ok']);
    // A last line past the cap is dropped too.
    expect(splitter.end()).toBeUndefined();
  });

  test('a line too long within one chunk is dropped, its neighbours kept', () => {
    const splitter = new LineSplitter(3);
    expect(text(splitter.push(Buffer.from('a\nbbbb\nc\n')))).toEqual(['a', 'c']);
  });

  test('holds a copy of a carried piece: a reader may reuse its buffer for the next read', () => {
    const splitter = new LineSplitter(100);
    const buffer = Buffer.from('xy');
    splitter.push(buffer);
    buffer.write('zz');
    expect(text(splitter.push(Buffer.from('\n')))).toEqual(['xy']);
  });
});
