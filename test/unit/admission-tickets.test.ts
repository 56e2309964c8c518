import { describe, expect, it } from 'vitest';
import {
  cancelRefusal,
  interruptedFailure,
  isExpiredTicket,
  isInterrupted,
  isSettled,
  pendingInOrder,
  TICKET_RETENTION_MS,
} from '../../service/core/tickets.js';
import { TICKET_STATES, type Ticket, TicketSchema } from '../../service/state/work-schemas.js';
import { ticketFixture } from '../helpers/job-fixtures.js';

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

  it('turns it into an explicit failed ticket naming the service and the job that may have started', () => {
    const admitting = ticket({ state: 'admitting', admitter: SERVICE, job: 'j_abc', item: 'i_abc' });
    const failed = interruptedFailure(admitting, NOW);
    expect(failed).toMatchObject({
      state: 'failed',
      state_ms: NOW,
      job: 'j_abc',
      item: 'i_abc',
      notice: 'pending',
    });
    expect(failed.error).toBe(
      'admission interrupted: the service stopped while admitting it (service pid 4242); ' +
        'job j_abc may have started: inspect it, nothing is relaunched',
    );
    expect(TicketSchema.parse(failed)).toEqual(failed);
  });

  it('leaves no notice for a waiting caller, who sees the failure itself', () => {
    const failed = interruptedFailure(ticket({ state: 'admitting', waiting: true }), NOW);
    expect(failed.notice).toBeNull();
    expect(failed.error).toBe('admission interrupted: the service stopped while admitting it');
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
