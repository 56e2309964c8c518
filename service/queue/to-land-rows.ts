// The one reader of an owner's TO LAND rows (core/to-land-rule.ts): the owner's items, this host's
// branch observations (branches.json, written by the service's branch watch) and what peers
// forwarded of their children's branches onto the items. The board, the stop gate, the Stop
// response and prompt context all call it; the agent panes, which say only whether a child still
// open has finished its turn, are this host's snapshot's (the callers read it anyway) and, for a
// child open on a peer, that peer's last snapshot in the peer cache (peers/ID.json), which the
// service keeps fresh: nothing here asks a peer anything.

import type { Item } from '../core/agents/item-types.js';
import { forwardedBranches } from '../core/inbox/outbox-rule.js';
import {
  type HostLandPane,
  type LandPane,
  type LandRow,
  mayLand,
  ownerToLand,
} from '../core/inbox/to-land-rule.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import type { StateIO } from '../state/io.js';
import { readBranchObservations } from '../state/records/branch-observations.js';

/** Whether `owner` has a child that could have a TO LAND row (an agent item started with a branch). */
export function mayHaveToLand(items: readonly Item[], owner: string): boolean {
  return items.some((item) => mayLand(item, owner));
}

/**
 * `owner`'s TO LAND rows; `panes` are this host's snapshot's agent panes. branches.json that cannot
 * be read throws (a caller that must not fail, like the board, decides what to show instead); a
 * missing one has no observations. A peer entry that cannot be read shows no pane there.
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
  const here = panes.map((pane) => ({ ...pane, host: LOCAL_HOST.id }));
  return ownerToLand(owner, mine, observed, [...here, ...(await peerPanes(io, owner, mine))]);
}

/**
 * The agent panes of the peers where `owner` has an open child that may have work to land (its
 * branch seen there), from each peer's cached snapshot: pane ids repeat across hosts, so each is
 * tagged with its host. Loaded only then: most owners have no such child.
 */
async function peerPanes(io: StateIO, owner: string, mine: readonly Item[]): Promise<HostLandPane[]> {
  const hosts = new Set(
    mine
      .filter(
        (item) =>
          item.host !== LOCAL_HOST.id &&
          item.closed_ms === null &&
          !!item.branch_seen &&
          mayLand(item, owner),
      )
      .map((item) => item.host),
  );
  if (hosts.size === 0) return [];
  const { readPeerEntry } = await import('../hosts/peer-cache.js');
  const found = await Promise.all(
    [...hosts].map(async (host) => {
      const entry = await readPeerEntry(io, host).catch(() => undefined);
      return (entry?.reply?.host.probe?.agent_panes ?? []).map((pane) => ({ ...pane, host }));
    }),
  );
  return found.flat();
}
