// The fleet bus's rules: which keys of the hosts bucket are hosts, when a bus peer is stale or the
// bus down, how a key's server time moves onto this host's clock; and a document judged by size,
// JSON and schema before anything shows it.

import { describe, expect, it } from 'vitest';
import {
  BUS_STALE_MS,
  busUnreachable,
  changedAtMs,
  foreignHostKey,
  rpcSubject,
} from '../../../../service/core/fleet/bus-rules.js';
import { readBusDocument } from '../../../../service/hosts/bus-peers.js';
import { hostileReply, tainted } from '../../../helpers/hostile-snapshot.js';

const NOW = 1_900_000_000_000;

describe('bus rules', () => {
  it('takes keys that are host ids, never its own', () => {
    expect(foreignHostKey('bravo', 'alpha')).toBeUndefined();
    expect(foreignHostKey('alpha', 'alpha')).toBe('own');
    for (const key of ['local', '-x', 'a/b', `${'a'.repeat(65)}`, ''])
      expect(foreignHostKey(key, 'alpha')).toBe('not a host id');
  });

  it('is stale once the key has not changed for 30 s, and bus down while the service says so', () => {
    expect(busUnreachable({ read_ms: NOW - BUS_STALE_MS, unreachable: null }, NOW)).toBeNull();
    expect(busUnreachable({ read_ms: NOW - BUS_STALE_MS - 1, unreachable: null }, NOW)).toBe('stale');
    expect(busUnreachable({ read_ms: null, unreachable: null }, NOW)).toBe('stale');
    expect(busUnreachable({ read_ms: NOW, unreachable: 'bus down' }, NOW)).toBe('bus down');
    expect(busUnreachable({ read_ms: NOW - 2_001, unreachable: null }, NOW, 2_000)).toBe('stale');
  });

  it("moves a revision's server time onto this clock, never into the future", () => {
    expect(changedAtMs(NOW + 5_000, 5_000, NOW + 100)).toBe(NOW);
    expect(changedAtMs(NOW + 5_000, 0, NOW)).toBe(NOW);
    expect(rpcSubject('alpha')).toBe('dogsled.rpc.alpha');
  });
});

describe('a document from the bucket', () => {
  const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

  it('is refused by size before it is parsed', () => {
    const big = new Uint8Array(50 * 1024 * 1024).fill(0x7b);
    expect(readBusDocument(big)).toEqual({
      ok: false,
      problem: 'a document of 52428800 bytes, over the 8388608-byte limit',
    });
  });

  it('that is not JSON, or not a snapshot, is named without its content', () => {
    expect(readBusDocument(new TextEncoder().encode('\u001b]0;pwned\u0007{'))).toEqual({
      ok: false,
      problem: 'a document that is not JSON',
    });
    expect(readBusDocument(new Uint8Array([0xff, 0xfe, 0x7b]))).toEqual({
      ok: false,
      problem: 'a document that is not JSON',
    });
    expect(readBusDocument(bytes({ now_ms: 'soon', host: { hostname: 7 } }))).toEqual({
      ok: false,
      problem: 'a document that is not a dogsled snapshot',
    });
  });

  it('with escapes in every string is taken cleaned', () => {
    const read = readBusDocument(bytes(hostileReply(NOW)));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.reply.host.hostname).toBe('evil-host');
    expect(tainted(read.reply)).toEqual([]);
  });
});
