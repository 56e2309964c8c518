// Whole records of the job state files (jobs/ID.json, queue.json tickets, items.json items) with
// plain defaults, for tests that write state directly; each test overrides what it is about.

import type { Item } from '../../service/core/agents/item-types.js';
import type { JobRecord } from '../../service/core/jobs/job-types.js';
import type { Ticket } from '../../service/core/placement/queue-types.js';
import { pendingTicket } from '../../service/core/placement/tickets.js';

/** A created job that has not started: what `run` writes before its pane exists. */
export function jobFixture(fields: Partial<JobRecord> & Pick<JobRecord, 'id'>): JobRecord {
  return {
    version: 1,
    command: ['true'],
    cwd: '/tmp',
    host: 'local',
    owner: 'w1:p1',
    pane: null,
    created_ms: Date.now(),
    started_ms: null,
    ended_ms: null,
    exit_code: null,
    signal: null,
    reason: null,
    timeout_ms: null,
    idle_timeout_ms: null,
    ...fields,
  };
}

/** A pending job ticket. */
export function ticketFixture(fields: Partial<Ticket> & Pick<Ticket, 'id'>): Ticket {
  const request = {
    command: ['true'],
    cwd: '/tmp',
    timeout_ms: null,
    idle_timeout_ms: null,
    caller_workspace: null,
  };
  const ask = { id: fields.id, kind: 'job', owner: 'w1:p1', pin: null, request, waiting: false } as const;
  return { ...pendingTicket(ask, Date.now()), ...fields };
}

/** An open job item. */
export function itemFixture(fields: Partial<Item> & Pick<Item, 'id'>): Item {
  return {
    kind: 'job',
    host: 'local',
    pane: null,
    terminal_id: null,
    owner: 'w1:p1',
    created_ms: Date.now(),
    closed_ms: null,
    close_reason: null,
    job: null,
    ticket: null,
    command: ['true'],
    ...fields,
  };
}
