// The hot bundles' code cache file (service/state/code-cache/code-cache.ts), read as the hot loader
// reads it: the header and the first copy at once, the second copy a chunk at a time into one buffer
// the caller may hand to every read. Whatever the file holds, the chunked reader's verdict is the
// whole-file parse's (parseCodeCache over the file's bytes), the data it hands V8 starts at a multiple
// of 8 (V8 copies data that does not), and a buffer reused across reads, with another file's bytes
// still in it, changes nothing.

import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  codeCacheFile,
  formatCodeCache,
  parseCodeCache,
  readCodeCache,
} from '../../../service/state/code-cache/code-cache.js';
import { tempDir } from '../../helpers/tree.js';

const dir = await tempDir('dogsled-code-cache-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = 'dogsled-code-cache 2 v20.0.0 0123abcd ["(function () {","\\n})",[]]';
let files = 0;

function written(bytes: Buffer): string {
  const file = join(dir, `c${files++}.bin`);
  writeFileSync(file, bytes);
  return file;
}

/** The verdict of reading the whole file at once, what the chunked read must agree with. */
function whole(file: string, key = KEY): { data: Buffer } | { refused: string } {
  return parseCodeCache(readFileSync(file), key);
}

const verdict = (read: { data: Buffer } | { refused: string }) =>
  'data' in read ? { data: Buffer.from(read.data).toString('hex') } : read;

/** A buffer handed out again and again, its old bytes left in it, as the hot loader's scratch. */
function sharedBuffer(): (size: number) => Buffer {
  let buffer = Buffer.alloc(0);
  return (size) => {
    if (buffer.length < size) buffer = randomBytes(size + 4096);
    else randomBytes(buffer.length).copy(buffer);
    return buffer;
  };
}

// Sizes around every boundary of the reader: a file the first read takes whole, one a byte over,
// the second copy's chunks (16 KB) and their ends, and caches as large as the hot bundles'.
const SIZES = [1, 7, 8, 9, 100, 4095, 4096, 4097, 8000, 16_383, 16_384, 16_385, 40_000, 100_003, 360_001];

describe('a code cache read in chunks', () => {
  it('hands back exactly the data written, aligned, whatever buffer it is given', () => {
    const shared = sharedBuffer();
    for (const size of SIZES) {
      const data = randomBytes(size);
      const file = written(formatCodeCache(KEY, data));
      for (const bufferOf of [undefined, shared]) {
        const read = readCodeCache(file, KEY, bufferOf);
        if (!('data' in read)) throw new Error(`${size}: ${read.refused}`);
        expect(read.data.equals(data)).toBe(true);
        expect(read.data.byteOffset % 8).toBe(0);
      }
    }
  });

  it('starts the data at a multiple of 8 whatever the key, non-ASCII included', () => {
    for (let extra = 0; extra < 16; extra++) {
      const key = `${KEY} ${'é'.repeat(extra)}${'x'.repeat(extra)}`;
      const bytes = formatCodeCache(key, Buffer.from('v8 data'));
      const start = bytes.indexOf(10, bytes.indexOf(10) + 1) + 1;
      expect(start % 8).toBe(0);
      expect(verdict(readCodeCache(written(bytes), key))).toEqual({
        data: Buffer.from('v8 data').toString('hex'),
      });
    }
  });

  it('refuses a byte changed anywhere, as the whole-file parse does', () => {
    const shared = sharedBuffer();
    for (const size of [9, 16_385, 100_003]) {
      const good = formatCodeCache(KEY, randomBytes(size));
      const start = good.indexOf(10, good.indexOf(10) + 1) + 1;
      // Every 301st byte, and the first and last of each copy.
      const at = new Set([0, start, start + size - 1, start + size, good.length - 1]);
      for (let i = 0; i < good.length; i += 997) at.add(i);
      for (const i of at) {
        const bad = Buffer.from(good);
        bad[i] = (bad[i] ?? 0) ^ 0x01;
        const file = written(bad);
        const read = readCodeCache(file, KEY, shared);
        expect({ i, ...verdict(read) }).toEqual({ i, ...verdict(whole(file)) });
        expect({ i, data: 'data' in read }).toEqual({ i, data: false });
      }
    }
  });

  it('refuses a file cut short or grown, an empty one and another key', () => {
    const good = formatCodeCache(KEY, randomBytes(50_000));
    const cases: Array<[string, Buffer, string]> = [
      ['a byte short', good.subarray(0, good.length - 1), 'truncated'],
      ['half', good.subarray(0, good.length >> 1), 'truncated'],
      ['the header alone', good.subarray(0, good.indexOf(10, good.indexOf(10) + 1) + 1), 'truncated'],
      ['the key alone', good.subarray(0, good.indexOf(10)), 'foreign key'],
      ['a byte more', Buffer.concat([good, Buffer.from('x')]), 'truncated'],
      ['empty', Buffer.alloc(0), 'foreign key'],
      ['another key', formatCodeCache(`${KEY}x`, randomBytes(50_000)), 'foreign key'],
      ['a zero length', Buffer.from(`${KEY}\n0\n`), 'truncated'],
      ['a length that is no number', Buffer.from(`${KEY}\nmany\nxx`), 'truncated'],
      // A line longer than 16 digits and 7 spaces is not ours, whatever it says.
      ['a length line too long', Buffer.from(`${KEY}\n${' '.repeat(30)}2\nxxxx`), 'truncated'],
    ];
    for (const [what, bytes, refused] of cases) {
      const file = written(bytes);
      expect({ what, ...verdict(readCodeCache(file, KEY)) }).toEqual({ what, refused });
      expect({ what, ...verdict(whole(file)) }).toEqual({ what, refused });
    }
  });

  it('reads a long key (a long NODE_OPTIONS) as it reads a short one', () => {
    for (const length of [5_000, 20_000]) {
      const key = `${KEY} ${'o'.repeat(length)}`;
      for (const size of [10, 3_000, 100_003]) {
        const data = randomBytes(size);
        const good = formatCodeCache(key, data);
        const read = readCodeCache(written(good), key, sharedBuffer());
        expect('data' in read && read.data.equals(data)).toBe(true);
        const bad = Buffer.from(good);
        bad[bad.length - 2] = (bad[bad.length - 2] ?? 0) ^ 0x01;
        expect(readCodeCache(written(bad), key)).toEqual({ refused: 'damaged' });
      }
    }
  });

  it('judges random files exactly as the whole-file parse does', () => {
    const shared = sharedBuffer();
    for (let round = 0; round < 300; round++) {
      const size = 1 + Math.floor(Math.random() ** 3 * 120_000);
      let bytes = formatCodeCache(KEY, randomBytes(size));
      const cut = Math.random();
      if (cut < 0.2) bytes = bytes.subarray(0, Math.floor(Math.random() * bytes.length));
      else if (cut < 0.6) {
        bytes = Buffer.from(bytes);
        const i = Math.floor(Math.random() * bytes.length);
        bytes[i] = (bytes[i] ?? 0) ^ (1 + Math.floor(Math.random() * 255));
      }
      const file = written(bytes);
      expect({ round, ...verdict(readCodeCache(file, KEY, shared)) }).toEqual({
        round,
        ...verdict(whole(file)),
      });
    }
  });

  it('refuses a file cut short after it was opened, wherever the cut falls', () => {
    const data = randomBytes(60_000);
    const good = formatCodeCache(KEY, data);
    const start = good.indexOf(10, good.indexOf(10) + 1) + 1;
    for (const cut of [
      10,
      start - 2,
      start + 100,
      start + data.length - 1,
      start + data.length + 10,
      good.length - 1,
    ]) {
      const file = written(good);
      // The buffer is asked for once the file's size is known: the file is cut then, as another
      // process could cut it between the size and the reads.
      const cutting = (size: number) => {
        truncateSync(file, cut);
        return Buffer.alloc(size, 0x5a);
      };
      // Cut inside the key, the key's line is not ours: refused as another key's would be.
      const refused = cut < KEY.length ? 'foreign key' : 'truncated';
      expect({ cut, ...verdict(readCodeCache(file, KEY, cutting)) }).toEqual({ cut, refused });
    }
  });

  // The key names what V8's data is valid for, not the file's layout: a build before the padded
  // length's line and this one read each other's files (Number() ignores the spaces), so two builds
  // whose bundle is the same share its cache instead of replacing each other's.
  it('reads the former layout, its data not aligned', () => {
    const data = randomBytes(30_000);
    const file = written(Buffer.concat([Buffer.from(`${KEY}\n${data.length}\n`), data, data]));
    const read = readCodeCache(file, KEY);
    expect('data' in read && read.data.equals(data)).toBe(true);
  });

  it("names a cache's file as join does, whatever the state dir looks like", () => {
    for (const stateDir of ['/s', '/s/', '//s//', '/', 'rel', 'rel/', './rel/../x', '.', '', '../s']) {
      for (const name of ['dispatch-status', 'status-lean-line', 'sidebar-blessed']) {
        expect(codeCacheFile(stateDir, name, '0123456789abcdef0123')).toBe(
          join(stateDir, 'code-cache', `${name}-0123456789abcdef.bin`),
        );
      }
    }
  });
});
