// branches.json: what the service last saw of the branches its children made (spec, "Items and
// closing": TO LAND rows come from durable items and branch observations, not live panes). The
// service is its only writer and replaces it whole; the board and the sidebar only read it.
// The records are the core's (service/core): the list after the schemas has tsc prove that each
// schema reads exactly its record.

import * as z from 'zod/mini';
import { itemsHoldingBranches } from '../../core/agents/item-closing.js';
import type { Item } from '../../core/agents/item-types.js';
import { forwardedBranches } from '../../core/inbox/outbox-rule.js';
import type { BranchObservationRecord, BranchObservations } from '../../core/inbox/outbox-types.js';
import { lazySchema } from '../engine/lazy-schema.js';
import type { Check, Matches } from '../engine/schema-match.js';
import { readState, writeState } from '../engine/store.js';
import type { StateIO } from '../io.js';
import '../engine/zod-messages.js';

export const BranchObservationSchema = lazySchema(() =>
  z.looseObject({
    item: z.string(),
    child: z.string(),
    host: z.string(),
    repository: z.string(),
    branch: z.string(),
    /** Commits the default branch (or, after a good fetch, a remote-tracking ref) does not hold. */
    ahead: z.int(),
    dirty: z.boolean(),
    /** Integrated into the default branch, or deleted: nothing to land. */
    landed: z.boolean(),
    observed_ms: z.int(),
  }),
);

export const BranchObservationsSchema = lazySchema(() =>
  z.looseObject({
    version: z.literal(1),
    branches: z.array(BranchObservationSchema),
  }),
);

/** tsc fails here when a schema drifts from the core's record it reads (engine/schema-match.ts). */
export type BranchObservationsMatch = [
  Check<Matches<typeof BranchObservationSchema, BranchObservationRecord>>,
  Check<Matches<typeof BranchObservationsSchema, BranchObservations>>,
];

export function branchesFile(io: Pick<StateIO, 'paths'>): string {
  return io.paths.branches;
}

export async function readBranchObservations(io: StateIO): Promise<BranchObservationRecord[]> {
  return (await readState(branchesFile(io), BranchObservationsSchema, io))?.branches ?? [];
}

/**
 * Which items a closing write must keep past retention (their branch still has work to land), read
 * once before the write: an unreadable branches.json keeps every item, so it drops nothing.
 */
export async function branchHolds(
  io: StateIO,
): Promise<(items: Parameters<typeof itemsHoldingBranches>[0]) => Set<string>> {
  const branches = await readBranchObservations(io).catch(() => undefined);
  // A child on a peer is held by what the peer forwarded of its branch (core/outbox.ts).
  return (items) =>
    branches === undefined
      ? new Set(items.map((item) => item.id))
      : itemsHoldingBranches(items, [...branches, ...forwardedBranches(items as Item[], 'local')]);
}

export async function writeBranchObservations(
  io: StateIO,
  branches: readonly BranchObservationRecord[],
): Promise<void> {
  await writeState(branchesFile(io), BranchObservationsSchema, { version: 1, branches: [...branches] });
}
