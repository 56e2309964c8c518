// `host outbox claim OWNER [LEASE_MS]` and `host outbox ack OWNER ID…`: what an owner's service on
// another host runs here to take the messages of its children on this host (inbox/outbox.ts). A claim
// leases what it returns; what is not acked before the lease ends is offered again.

import { DogsledError } from '../core/common/errors.js';
import { HOST_IDENTITY } from '../core/fleet/fleet-types.js';
import { OUTBOX_LEASE_MS } from '../core/inbox/outbox-rule.js';
import { ackOutbox, claimOutbox } from '../inbox/outbox.js';
import type { VerbIO, VerbResult } from './verb-table.js';

/** A claimer may ask a shorter lease (its own deadline) but never one past an hour. */
const LEASE_MAX_MS = 3_600_000;

function owner(value: string | undefined): string {
  if (value === undefined || !HOST_IDENTITY.test(value)) {
    throw new DogsledError(`host outbox: "${value ?? ''}" is not a host identity`);
  }
  return value;
}

export async function outboxVerb(args: readonly string[], io: VerbIO): Promise<VerbResult> {
  const [action, who, ...rest] = args;
  if (action === 'claim') {
    if (rest.length > 1) throw new DogsledError('host outbox claim: takes an owner and a lease');
    const lease = rest[0] === undefined ? OUTBOX_LEASE_MS : Number(rest[0]);
    if (!Number.isSafeInteger(lease) || lease < 1 || lease > LEASE_MAX_MS) {
      throw new DogsledError(`host outbox claim: lease "${rest[0]}" is not 1 to ${LEASE_MAX_MS} ms`);
    }
    return { value: { records: await claimOutbox(io, owner(who), lease) } };
  }
  if (action === 'ack') {
    return { value: { removed: await ackOutbox(io, owner(who), rest) } };
  }
  throw new DogsledError(`host outbox: expected claim or ack, got "${action ?? ''}"`);
}
