import { describe, expect, it } from 'vitest';
import type { Headroom } from '../../../../service/core/placement/headroom.js';
import {
  findHost,
  type PlacementCandidate,
  planPlacement,
  rankHosts,
} from '../../../../service/core/placement/placement.js';
import { isLive, liveReservations } from '../../../../service/core/placement/reservations.js';

function host(id: string, free: number, live = 0, eligible = true, label = id): PlacementCandidate {
  const headroom: Headroom = {
    free_cores: free,
    measured: free,
    declared: free,
    eligible,
    reason: eligible ? [] : ['cpu: full'],
    reservations: 0,
    live_agents: live,
    active_agents: 0,
  };
  return { id, label, headroom };
}

describe('ranking', () => {
  it('puts the host with the most free cores first', () => {
    expect(rankHosts([host('a', 2), host('b', 7), host('c', 4)]).map((h) => h.id)).toEqual(['b', 'c', 'a']);
  });

  it('breaks a free-core tie with fewer live agents', () => {
    expect(rankHosts([host('a', 4, 3), host('b', 4, 1)]).map((h) => h.id)).toEqual(['b', 'a']);
  });

  it('breaks a remaining tie with the host id', () => {
    expect(rankHosts([host('netcup', 4, 1), host('alpha', 4, 1)]).map((h) => h.id)).toEqual([
      'alpha',
      'netcup',
    ]);
  });

  it('leaves out hosts that are not eligible, however free', () => {
    expect(rankHosts([host('a', 9, 0, false), host('b', 1)]).map((h) => h.id)).toEqual(['b']);
  });
});

describe('planning a placement', () => {
  it('reports every refusal when no host is eligible', () => {
    const plan = planPlacement([host('a', 0, 0, false), host('b', 0, 0, false)]);
    expect(plan).toEqual({
      kind: 'full',
      refusals: [
        { id: 'a', label: 'a', reason: ['cpu: full'] },
        { id: 'b', label: 'b', reason: ['cpu: full'] },
      ],
    });
  });

  it('pins by id or label and never falls back to another host', () => {
    const hosts = [host('h1', 9, 0, true, 'netcup'), host('h2', 1, 0, false, 'momokaya')];
    expect(planPlacement(hosts, 'netcup')).toMatchObject({ kind: 'ranked', order: [{ id: 'h1' }] });
    expect(planPlacement(hosts, 'h2')).toMatchObject({ kind: 'full', refusals: [{ id: 'h2' }] });
  });

  it('names the known hosts when the pin matches none', () => {
    expect(planPlacement([host('local', 3)], 'nowhere')).toEqual({
      kind: 'unknown-host',
      pin: 'nowhere',
      known: ['local'],
    });
  });

  it('prefers an id match over a label match', () => {
    const hosts = [host('a', 1, 0, true, 'b'), host('b', 1, 0, true, 'c')];
    expect(findHost(hosts, 'b')?.id).toBe('b');
  });
});

describe('reservation lifetime', () => {
  it('a reservation lives until its TTL and not a millisecond more', () => {
    expect(isLive({ expires_ms: 1000 }, 999)).toBe(true);
    expect(isLive({ expires_ms: 1000 }, 1000)).toBe(false);
  });

  it('drops only expired reservations', () => {
    const list = [
      { id: 'a', expires_ms: 10 },
      { id: 'b', expires_ms: 30 },
    ];
    expect(liveReservations(list, 20).map((r) => r.id)).toEqual(['b']);
  });
});
