import { describe, expect, it } from 'vitest';
import { TICKET_STATES, type Ticket } from '../../../service/core/placement/queue-types.js';
import {
  cancelRefusal,
  interruptedNeverStarted,
  isExpiredTicket,
  isInterrupted,
  isSettled,
  pendingInOrder,
  settleInterrupted,
  TICKET_RETENTION_MS,
} from '../../../service/core/placement/tickets.js';
import { TicketSchema } from '../../../service/state/schemas/queue-items-schemas.js';
import { ticketFixture } from '../../helpers/job-fixtures.js';

const NOW = 1_900_000_000_000;
const SERVICE = { pid: 4242, started_ms: NOW - 60_000 };

function ticket(fields: Partial<Ticket> = {}): Ticket {
  const base = { id: 't_aaaaaaaaaaaa', owner: 'w1:p2', created_ms: NOW - 5_000, state_ms: NOW - 5_000 };
  return TicketSchema.parse(ticketFixture({ ...base, ...fields }));
}

describe('the FIFO order', () => {
  it('lists pending tickets oldest first, leaving out every other state', () => {
    const tickets = [
      ticket({ id: 't3', created_ms: 30 }),
      ticket({ id: 't1', created_ms: 10 }),
      ticket({ id: 'tx', created_ms: 5, state: 'admitted' }),
      ticket({ id: 't2', created_ms: 20 }),
      ticket({ id: 'ty', created_ms: 1, state: 'admitting' }),
    ];
    expect(pendingInOrder(tickets).map((t) => t.id)).toEqual(['t1', 't2', 't3']);
  });

  it('keeps append order among tickets created in the same millisecond', () => {
    const tickets = ['a', 'b', 'c', 'd'].map((id) => ticket({ id, created_ms: 7 }));
    expect(pendingInOrder(tickets).map((t) => t.id)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('interrupted admissions', () => {
  it('counts an admitting ticket of another service run as interrupted, never one of this run', () => {
    const admitting = ticket({ state: 'admitting', admitter: SERVICE, job: 'j_1', item: 'i_1' });
    expect(isInterrupted(admitting, SERVICE)).toBe(false);
    expect(isInterrupted(admitting, { ...SERVICE, pid: 1 })).toBe(true);
    // The same pid reused by a later service run is another run.
    expect(isInterrupted(admitting, { ...SERVICE, started_ms: NOW })).toBe(true);
    expect(isInterrupted(ticket({ state: 'admitting' }), SERVICE)).toBe(true);
  });

  it('never counts a ticket in another state as interrupted', () => {
    for (const state of TICKET_STATES.filter((s) => s !== 'admitting')) {
      expect(isInterrupted(ticket({ state, admitter: { pid: 1, started_ms: 1 } }), SERVICE)).toBe(false);
    }
  });

  const admitting = () => ticket({ state: 'admitting', admitter: SERVICE, job: 'j_abc', item: 'i_abc' });

  it('admits it when its job started: the job ran once and is never launched again', () => {
    const admitted = settleInterrupted(admitting(), { kind: 'started' }, NOW);
    expect(admitted).toMatchObject({
      state: 'admitted',
      state_ms: NOW,
      job: 'j_abc',
      item: 'i_abc',
      error: null,
      notice: 'pending',
    });
    expect(TicketSchema.parse(admitted)).toEqual(admitted);
  });

  it('admits a place ticket, whose reservation was written with its claim', () => {
    const place = ticket({ state: 'admitting', admitter: SERVICE, kind: 'place', request: null });
    expect(settleInterrupted(place, { kind: 'placement' }, NOW)).toMatchObject({ state: 'admitted' });
  });

  it('fails it with the reason when nothing started, naming the service', () => {
    expect(settleInterrupted(admitting(), { kind: 'no-record' }, NOW)).toMatchObject({
      state: 'failed',
      error: 'admission interrupted: the service (pid 4242) stopped before j_abc was created; nothing ran',
      notice: 'pending',
    });
    const reason = interruptedNeverStarted(admitting());
    expect(reason).toBe('never started: the service (pid 4242) stopped while launching it');
    expect(settleInterrupted(admitting(), { kind: 'not-started', reason }, NOW).error).toBe(
      `j_abc: ${reason}`,
    );
    expect(
      settleInterrupted(admitting(), { kind: 'not-started', reason: 'launch failed: no tabs' }, NOW).error,
    ).toBe('j_abc: launch failed: no tabs');
  });

  it('says the job may have started when its record cannot be read', () => {
    const failed = settleInterrupted(admitting(), { kind: 'unknown', why: 'not JSON' }, NOW);
    expect(failed.error).toBe(
      'admission interrupted: the service (pid 4242) stopped while admitting it; j_abc may have started (not JSON): inspect it, nothing is relaunched',
    );
  });

  it('leaves no notice for a waiting caller, who sees the outcome itself', () => {
    const waiting = ticket({ state: 'admitting', waiting: true, job: 'j_1' });
    expect(settleInterrupted(waiting, { kind: 'no-record' }, NOW).notice).toBeNull();
    expect(settleInterrupted(waiting, { kind: 'started' }, NOW).notice).toBeNull();
  });
});

describe('retention and cancel', () => {
  it('keeps settled tickets for 24 hours and pending or admitting ones for ever', () => {
    for (const state of ['admitted', 'failed', 'cancelled'] as const) {
      const settled = ticket({ state, state_ms: NOW - TICKET_RETENTION_MS });
      expect(isSettled(settled)).toBe(true);
      expect(isExpiredTicket(settled, NOW)).toBe(false);
      expect(isExpiredTicket(settled, NOW + 1)).toBe(true);
    }
    for (const state of ['pending', 'admitting'] as const) {
      expect(isExpiredTicket(ticket({ state, state_ms: 0 }), NOW)).toBe(false);
    }
  });

  it('cancels pending tickets only, saying why in one line otherwise', () => {
    expect(cancelRefusal(ticket())).toBeNull();
    expect(cancelRefusal(ticket({ id: 't_x', state: 'admitted' }))).toBe(
      'ticket t_x is admitted: cancel only cancels pending tickets',
    );
    for (const state of ['admitting', 'failed', 'cancelled'] as const) {
      expect(cancelRefusal(ticket({ state }))).toContain(`is ${state}:`);
    }
  });
});
