import { describe, expect, it } from 'vitest';
import {
  type AdmissionHost,
  type FactsHost,
  planAdmissions,
  type QueuedTicket,
  ticketsAhead,
} from '../../../service/core/placement/admission-order.js';
import type { HostMeasure, Policy } from '../../../service/core/placement/headroom.js';

const NOW = 1_900_000_000_000;
const GIB = 1024 ** 3;

/** 8 idle cores and plenty of memory and disk: each reservation takes one core, 2 must stay free. */
const POLICY: Policy = {
  free_core_fraction_min: 0.25,
  memory_reserve_bytes: GIB,
  disk_free_min_percent: 15,
  reservation_load: 1,
  reservation_ttl_ms: 90_000,
};

function measure(cores: number): HostMeasure {
  return {
    sample_ms: NOW - 1_000,
    os: 'linux',
    cores,
    busy: 0,
    memory_total_bytes: 256 * GIB,
    memory_free_bytes: 200 * GIB,
    disk_total_bytes: 1000 * GIB,
    disk_free_bytes: 500 * GIB,
    pressure_level: null,
    live_agents: 0,
    active_agents: 0,
  };
}

/** A host with room for exactly `room` more reservations (8 cores, 2 kept free). */
function host(id: string, room: number, label = id): FactsHost {
  return { id, label, facts: { id, service: 'up', measure: measure(8), reservations: 7 - room } };
}

function ticket(id: string, pin: string | null = null): QueuedTicket {
  return { id, pin };
}

function outcome(steps: ReturnType<typeof planAdmissions>): string[] {
  return steps.map((s) => (s.kind === 'admit' ? `${s.ticket.id}->${s.host.id}` : `${s.ticket.id}!`));
}

describe('FIFO admission on one host', () => {
  it('admits the oldest tickets while room lasts, counting each admission as a reservation', () => {
    const steps = planAdmissions(
      ['t1', 't2', 't3', 't4'].map((id) => ticket(id)),
      [host('a', 3)],
      POLICY,
      NOW,
    );
    expect(outcome(steps)).toEqual(['t1->a', 't2->a', 't3->a']);
  });

  it('admits nothing when the host is full, and nothing jumps the head of the queue', () => {
    expect(planAdmissions([ticket('t1'), ticket('t2')], [host('a', 0)], POLICY, NOW)).toEqual([]);
  });

  it('counts reservations already booked on the host', () => {
    const booked = host('a', 5);
    booked.facts = { ...booked.facts, reservations: booked.facts.reservations + 4 };
    expect(outcome(planAdmissions([ticket('t1'), ticket('t2')], [booked], POLICY, NOW))).toEqual(['t1->a']);
  });

  it('does not admit to a host whose service is down or whose snapshot is missing', () => {
    const down = host('a', 5);
    down.facts = { ...down.facts, service: 'down' };
    const blind: AdmissionHost = {
      id: 'b',
      label: 'b',
      facts: { id: 'b', service: 'up', measure: null, reservations: 0 },
    };
    expect(planAdmissions([ticket('t1')], [down, blind], POLICY, NOW)).toEqual([]);
  });
});

describe('FIFO admission across hosts', () => {
  it('spreads tickets to the host with the most free cores, recomputed after each admission', () => {
    const steps = planAdmissions(
      ['t1', 't2', 't3', 't4'].map((id) => ticket(id)),
      [host('a', 2), host('b', 1)],
      POLICY,
      NOW,
    );
    // a has 3 free cores, b 2: a, then a tie (2 each) broken by id, then b.
    expect(outcome(steps)).toEqual(['t1->a', 't2->a', 't3->b']);
  });

  it('never holds back a ticket pinned to a host with room behind one waiting for a full host', () => {
    const steps = planAdmissions(
      [ticket('t1', 'full'), ticket('t2', 'roomy'), ticket('t3', 'full')],
      [host('full', 0), host('roomy', 2)],
      POLICY,
      NOW,
    );
    expect(outcome(steps)).toEqual(['t2->roomy']);
  });

  it('lets an unpinned ticket take a free host while an earlier pinned ticket waits for its own', () => {
    const steps = planAdmissions(
      [ticket('t1', 'full'), ticket('t2')],
      [host('full', 0), host('roomy', 1)],
      POLICY,
      NOW,
    );
    expect(outcome(steps)).toEqual(['t2->roomy']);
  });

  it('lets a waiting unpinned ticket hold every host: later tickets, pinned or not, wait behind it', () => {
    const steps = planAdmissions(
      [ticket('t1'), ticket('t2'), ticket('t3'), ticket('t4', 'b'), ticket('t5')],
      [host('a', 1), host('b', 0)],
      POLICY,
      NOW,
    );
    // t1 takes a's last room; t2 finds both full and waits holding a and b; nobody passes it.
    expect(outcome(steps)).toEqual(['t1->a']);
  });

  it('keeps FIFO per host: a pinned ticket waits behind an earlier one pinned to the same full host', () => {
    const steps = planAdmissions(
      [ticket('t1', 'a'), ticket('t2', 'a'), ticket('t3', 'b')],
      [host('a', 1), host('b', 1)],
      POLICY,
      NOW,
    );
    expect(outcome(steps)).toEqual(['t1->a', 't3->b']);
  });

  it('pins by label as well as by id', () => {
    const steps = planAdmissions(
      [ticket('t1', 'netcup')],
      [host('h1', 1, 'netcup'), host('h2', 5)],
      POLICY,
      NOW,
    );
    expect(outcome(steps)).toEqual(['t1->h1']);
  });
});

describe('peers as they judged themselves', () => {
  /** A peer's own headroom from its snapshot: eligible with `free` cores, or refused for `reason`. */
  function peer(id: string, free: number, reason: string[] = []): AdmissionHost {
    const judged = {
      free_cores: free,
      measured: free,
      declared: free,
      eligible: reason.length === 0,
      reason,
      reservations: 0,
      live_agents: 0,
      active_agents: 0,
    };
    return { id, label: id, judged };
  }

  it('admits one ticket per peer per pass: the peer recheck decides the next', () => {
    const steps = planAdmissions(
      ['t1', 't2', 't3'].map((id) => ticket(id)),
      [host('local', 0), peer('p', 6)],
      POLICY,
      NOW,
    );
    expect(outcome(steps)).toEqual(['t1->p']);
  });

  it('never admits to a stale or unreachable peer, but a ticket pinned there waits and holds it', () => {
    const stale = peer('p', 6, ['stale: snapshot is 41s old, admission needs 30s']);
    const steps = planAdmissions(
      [ticket('t1', 'p'), ticket('t2'), ticket('t3', 'p'), ticket('t4', 'local')],
      [host('local', 2), stale],
      POLICY,
      NOW,
    );
    // t1 waits for p (not failed: p is known); t2 and t4 take local's room; t3 waits behind t1.
    expect(outcome(steps)).toEqual(['t2->local', 't4->local']);
  });

  it('ranks a peer against this host by free cores', () => {
    const steps = planAdmissions([ticket('t1'), ticket('t2')], [host('local', 1), peer('p', 5)], POLICY, NOW);
    expect(outcome(steps)).toEqual(['t1->p', 't2->local']);
  });
});

describe('tickets no host can take', () => {
  it('fails a ticket pinned to an unknown host with a reason naming it', () => {
    const steps = planAdmissions([ticket('t1', 'nowhere'), ticket('t2')], [host('a', 1)], POLICY, NOW);
    expect(steps).toEqual([
      { kind: 'fail', ticket: ticket('t1', 'nowhere'), reason: 'unknown host "nowhere"' },
      expect.objectContaining({ kind: 'admit', ticket: ticket('t2') }),
    ]);
  });

  it('fails an unknown pin even when a full fleet holds every host', () => {
    const steps = planAdmissions([ticket('t1'), ticket('t2', 'gone')], [host('a', 0)], POLICY, NOW);
    expect(outcome(steps)).toEqual(['t2!']);
  });

  it('lets unpinned tickets wait when no host is known at all, failing only pinned ones', () => {
    expect(outcome(planAdmissions([ticket('t1'), ticket('t2', 'a')], [], POLICY, NOW))).toEqual(['t2!']);
  });
});

describe('new work behind waiting tickets', () => {
  const hosts = [
    { id: 'alpha', label: 'a' },
    { id: 'beta', label: 'b' },
  ];

  it('counts the pending tickets that could take one of its hosts, by id or label', () => {
    const pending = [ticket('t1'), ticket('t2', 'beta'), ticket('t3', 'a'), ticket('t4', 'nowhere')];
    expect(ticketsAhead(pending, hosts, new Set(['alpha', 'beta']))).toBe(3);
    // Pinned to beta: the ticket pinned to alpha (by its label) does not hold it back.
    expect(ticketsAhead(pending, hosts, new Set(['beta']))).toBe(2);
    expect(ticketsAhead([], hosts, new Set(['alpha']))).toBe(0);
  });

  it('never counts a ticket pinned to a host nobody knows', () => {
    expect(ticketsAhead([ticket('t1', 'nowhere')], hosts, new Set(['alpha', 'beta']))).toBe(0);
  });
});

describe('hosts closed to a ticket (a child whose budget is spent there)', () => {
  it('sends the ticket to another host even when the closed one has more room', () => {
    const closed = new Map([['t1', new Set(['a'])]]);
    const steps = planAdmissions(
      [ticket('t1'), ticket('t2')],
      [host('a', 5), host('b', 1)],
      POLICY,
      NOW,
      closed,
    );
    expect(outcome(steps)).toEqual(['t1->b', 't2->a']);
  });

  it('leaves the ticket waiting when only closed hosts have room, and work behind it goes on', () => {
    const closed = new Map([['t1', new Set(['a'])]]);
    const steps = planAdmissions(
      [ticket('t1'), ticket('t2')],
      [host('a', 2), host('b', 0)],
      POLICY,
      NOW,
      closed,
    );
    expect(outcome(steps)).toEqual(['t2->a']);
  });
});
