// The fleet bus's rules: which keys of the hosts bucket are hosts, when a bus peer is stale or the
// bus down, how a key's server time moves onto this host's clock; and a document judged by size,
// JSON and schema before anything shows it.

import { describe, expect, it } from 'vitest';
import {
  BUS_NO_VERBS,
  BUS_STALE_MS,
  busIdOfIdentity,
  busUnreachable,
  changedAtMs,
  foreignHostKey,
  inboxPrefix,
  outboxConsumer,
  outboxSender,
  outboxSubject,
  rpcSubject,
} from '../../../../service/core/fleet/bus-rules.js';
import type { PeerEntry } from '../../../../service/core/fleet/fleet-types.js';
import { readBusDocument } from '../../../../service/hosts/bus-peers.js';
import { peerView } from '../../../../service/hosts/peer-view.js';
import { PeerEntrySchema } from '../../../../service/state/schemas/peer-schemas.js';
import { hostileReply, tainted } from '../../../helpers/hostile-snapshot.js';

const NOW = 1_900_000_000_000;

describe('bus rules', () => {
  it('takes keys that are host ids, never its own', () => {
    expect(foreignHostKey('bravo', 'alpha')).toBeUndefined();
    expect(foreignHostKey('alpha', 'alpha')).toBe('own');
    // A dot would make the id two tokens of a subject (`dogsled.outbox.eu.alpha`).
    for (const key of ['local', '-x', 'a/b', `${'a'.repeat(65)}`, '', 'eu.alpha', 'a*', 'a>'])
      expect(foreignHostKey(key, 'alpha')).toBe('not a host id');
  });

  it("names each host's subjects, one token per id", () => {
    expect(rpcSubject('alpha')).toBe('dogsled.rpc.alpha');
    expect(inboxPrefix('alpha')).toBe('_INBOX_alpha');
    expect(outboxSubject('alpha', 'bravo')).toBe('dogsled.outbox.alpha.bravo');
    expect(outboxConsumer('alpha')).toEqual({ name: 'owner_alpha', filter: 'dogsled.outbox.alpha.*' });
  });

  it("takes a record's sender from its subject, only for this owner and a host id", () => {
    expect(outboxSender('dogsled.outbox.alpha.bravo', 'alpha')).toBe('bravo');
    expect(outboxSender('dogsled.outbox.alphax.bravo', 'alpha')).toBeUndefined();
    expect(outboxSender('dogsled.outbox.bravo.alpha', 'alpha')).toBeUndefined();
    for (const subject of ['dogsled.outbox.alpha.local', 'dogsled.outbox.alpha.a.b', 'dogsled.outbox.alpha.'])
      expect(outboxSender(subject, 'alpha')).toBeUndefined();
  });

  it('finds the bus id of an identity only when exactly one host claims it', () => {
    const peers = [
      { id: 'alpha', identity: 'h_aaaaaaaaaaaa' },
      { id: 'bravo', identity: 'h_bbbbbbbbbbbb' },
      { id: 'charlie', identity: null },
    ];
    expect(busIdOfIdentity('h_bbbbbbbbbbbb', peers)).toBe('bravo');
    expect(busIdOfIdentity('h_cccccccccccc', peers)).toBeUndefined();
    // A second host claiming alpha's identity: one of them lies, so neither gets its records.
    expect(
      busIdOfIdentity('h_aaaaaaaaaaaa', [...peers, { id: 'mallory', identity: 'h_aaaaaaaaaaaa' }]),
    ).toBeUndefined();
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
  });
});

describe('a bus peer as status and placement see it', () => {
  const entry = (bus: unknown): PeerEntry =>
    PeerEntrySchema.parse({
      version: 1,
      id: 'bravo',
      target: 'bus',
      attempt_ms: NOW,
      read_ms: NOW,
      unreachable: null,
      failures: 0,
      retry_at_ms: null,
      reply: {
        now_ms: NOW,
        host: {
          hostname: 'bravo',
          sample_ms: NOW,
          probe: null,
          headroom: {
            free_cores: 4,
            measured: 4,
            declared: null,
            eligible: true,
            reason: [],
            reservations: 0,
            live_agents: 0,
            active_agents: 0,
          },
          reservations: [],
          errors: [],
        },
        ...(bus === undefined ? {} : { bus }),
      },
      via: 'bus',
    });
  const peer = { id: 'bravo', label: 'bravo', target: 'bus', enabled: true, via: 'bus' as const };

  it('takes work when its document says it answers its verbs on the bus', () => {
    const view = peerView(peer, entry({ identity: 'h_bbbbbbbbbbbb', rpc: true }), NOW);
    expect(view.headroom.eligible).toBe(true);
  });

  it('takes none from an older dogsled, or one whose server refused its verbs, saying why', () => {
    for (const bus of [undefined, { identity: 'h_bbbbbbbbbbbb', rpc: false }]) {
      const view = peerView(peer, entry(bus), NOW);
      expect(view.headroom.eligible).toBe(false);
      expect(view.headroom.reason).toEqual([BUS_NO_VERBS]);
    }
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
