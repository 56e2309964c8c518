import { describe, expect, it } from 'vitest';
import {
  afterPeerFailure,
  afterPeerRead,
  NEVER_READ,
  PEER_READ_EVERY_MS,
  peerHeadroom,
  peerReadDue,
  peerService,
  retryInMs,
} from '../../../../service/core/fleet/peer-reads.js';
import type { Headroom } from '../../../../service/core/placement/headroom.js';

const T = 1_000_000;
const room: Headroom = {
  free_cores: 8,
  measured: 8,
  declared: 8,
  eligible: true,
  reason: [],
  reservations: 0,
  live_agents: 0,
  active_agents: 0,
};

describe('peer reads', () => {
  it('reads a peer never read, then not again for 10 s whoever asks', () => {
    expect(peerReadDue(undefined, T)).toBe(true);
    const read = afterPeerRead(T);
    expect(peerReadDue(read, T + PEER_READ_EVERY_MS - 1)).toBe(false);
    expect(peerReadDue(read, T + PEER_READ_EVERY_MS)).toBe(true);
    expect(peerReadDue(read, T + 1, true)).toBe(true);
  });

  it('backs off 10 s, 20 s, 40 s with jitter, never sooner than the read spacing, capped at 5 min', () => {
    let state = afterPeerFailure(undefined, 'timeout', T, 0.5);
    expect(state).toMatchObject({ failures: 1, retry_at_ms: T + 10_000, unreachable: 'timeout' });
    state = afterPeerFailure(state, 'timeout', T, 0.5);
    expect(state.retry_at_ms).toBe(T + 20_000);
    state = afterPeerFailure(state, 'timeout', T, 0.5);
    expect(retryInMs(state, T)).toBe(40_000);
    expect(afterPeerFailure(undefined, 'auth', T, 0).retry_at_ms).toBe(T + PEER_READ_EVERY_MS);
    const many = afterPeerFailure({ ...NEVER_READ, failures: 40 }, 'auth', T, 0.999);
    expect(many.retry_at_ms).toBe(T + 5 * 60_000);
    expect(peerReadDue(state, T + 39_999)).toBe(false);
    expect(peerReadDue(state, T + 40_000)).toBe(true);
  });

  it('keeps the last good read across failures and clears everything on success', () => {
    const failed = afterPeerFailure(afterPeerRead(T), 'connection refused', T + 20_000, 0.5);
    expect(failed.read_ms).toBe(T);
    expect(afterPeerRead(T + 60_000)).toEqual({
      attempt_ms: T + 60_000,
      read_ms: T + 60_000,
      unreachable: null,
      failures: 0,
      retry_at_ms: null,
    });
    expect(retryInMs(afterPeerRead(T), T)).toBeNull();
  });

  it('refuses an unreachable or stale peer, keeping its own reasons', () => {
    expect(peerHeadroom(room, { unreachable: null, ageMs: 5_000 })).toEqual(room);
    expect(peerHeadroom(room, { unreachable: 'timeout', ageMs: 5_000 })).toMatchObject({
      eligible: false,
      reason: ['unreachable: timeout'],
    });
    expect(peerHeadroom(room, { unreachable: null, ageMs: 31_000 }).reason).toEqual([
      'stale: snapshot is 31s old, admission needs 30s',
    ]);
  });

  it('takes the service from the peer, else the 30 s age fallback', () => {
    expect(peerService('down', 1_000)).toBe('down');
    expect(peerService(undefined, 30_000)).toBe('up');
    expect(peerService(undefined, 30_001)).toBe('down');
    expect(peerService(undefined, null)).toBe('down');
  });
});
