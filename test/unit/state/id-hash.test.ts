// The todo and board files' names (service/state/records/sidebar-files.ts): idHash is SHA-256 of the
// id's UTF-8, computed without node:crypto, and must name the files node:crypto's digest named, for
// any id a pane or tab may have (ids are Herdr's to shape): empty, multi-block, non-ASCII, lone
// surrogates (which UTF-8 writes as U+FFFD, as Node's hash update does).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { idHash } from '../../../service/state/records/sidebar-files.js';

const nodeHash = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 16);

describe('idHash', () => {
  it('is the first 16 hex digits of SHA-256, as a known digest says', () => {
    // SHA-256("abc"), FIPS 180-2's example.
    expect(idHash('abc')).toBe('ba7816bf8f01cfea');
    expect(idHash('')).toBe('e3b0c44298fc1c14');
  });

  it('names every id as node:crypto does, at every length around a block and past it', () => {
    const ids = [
      'w1:p1',
      'w12:p345',
      'tab:7',
      'w1:p1\n',
      'pané:1',
      '界:p2',
      '😀:p3',
      'a\uD800b',
      '\uDC00',
      'x\uD83D',
    ];
    for (let n = 0; n <= 300; n++) ids.push('p'.repeat(n), `w:${'é'.repeat(n)}`);
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 500; i++) {
      const length = random() % 200;
      ids.push(String.fromCharCode(...Array.from({ length }, () => random() % 0x10000)));
    }
    for (const id of ids) expect(idHash(id), JSON.stringify(id)).toBe(nodeHash(id));
  });
});
