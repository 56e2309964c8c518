// The one reader of an owner's TO LAND rows (core/to-land.ts): the owner's items, this host's
// branch observations (branches.json, written by the service's branch watch) and what peers
// forwarded of their children's branches onto the items. The board, the stop gate, the Stop
// response and prompt context all call it; the snapshot's agent panes, which the callers read
// anyway, only say whether a child still open has finished its turn.

import type { Item } from '../core/agents/item-types.js';
import { forwardedBranches } from '../core/inbox/outbox-rule.js';
import { type LandPane, type LandRow, mayLand, ownerToLand } from '../core/inbox/to-land-rule.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import type { StateIO } from '../state/io.js';
import { readBranchObservations } from '../state/records/branch-observations.js';

/** Whether `owner` has a child that could have a TO LAND row (an agent item started with a branch). */
export function mayHaveToLand(items: readonly Item[], owner: string): boolean {
  return items.some((item) => mayLand(item, owner));
}

/**
 * `owner`'s TO LAND rows. branches.json that cannot be read throws (a caller that must not fail,
 * like the board, decides what to show instead); a missing one has no observations.
 */
export async function readToLand(
  io: StateIO,
  owner: string,
  items: readonly Item[],
  panes: readonly LandPane[],
): Promise<LandRow[]> {
  if (!mayHaveToLand(items, owner)) return [];
  const mine = items.filter((item) => item.owner === owner);
  const observed = [...(await readBranchObservations(io)), ...forwardedBranches(mine, LOCAL_HOST.id)];
  return ownerToLand(owner, mine, observed, panes);
}
