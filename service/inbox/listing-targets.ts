// What a target a sender typed names in one Herdr listing (send-targets.ts has the rule): pure, so
// the full `send` and the lean one (actions/send-glance.ts, which reads the listing by hand) resolve
// it with the same code. A pane id the listing does not hold (a moved pane's old id) is Herdr's to
// resolve: undefined says ask.

import type { Item } from '../core/agents/item-types.js';
import { LOCAL_HOST } from '../hosts/local-view.js';
import type { Listing } from '../terminal/port-records.js';
import type { Whereabouts } from './whereabouts.js';

/** The fields of a listing the rule reads. */
export type TargetListing = {
  agents: ReadonlyArray<Pick<Listing['agents'][number], 'name' | 'terminal_id' | 'pane_id'>>;
  panes: ReadonlyArray<Pick<Listing['panes'][number], 'terminal_id' | 'pane_id'>>;
};

/** The fields of an item the rule reads. */
export type TargetItem = Pick<Item, 'closed_ms' | 'host' | 'name' | 'terminal_id' | 'pane'>;

export function nameOf(listing: Pick<TargetListing, 'agents'> | undefined, terminal: string): string | null {
  return listing?.agents.find((agent) => agent.terminal_id === terminal)?.name ?? null;
}

/** The pane `paneId` names in the listing, or undefined when it holds no such pane. */
export function listedPane(listing: TargetListing, paneId: string): Whereabouts | undefined {
  const listed = listing.panes.find((pane) => pane.pane_id === paneId);
  return (
    listed && {
      terminal: listed.terminal_id,
      pane: listed.pane_id,
      name: nameOf(listing, listed.terminal_id),
    }
  );
}

/**
 * The inboxes `target` names in `listing` by a name (a live agent's, an open child's or tracked
 * pane's here), else the pane it names there; undefined when it names no pane listed (ask Herdr).
 */
export function targetsInListing(
  listing: TargetListing,
  target: string,
  items: readonly TargetItem[],
): Whereabouts[] | undefined {
  const found = new Map<string, Whereabouts>();
  const agent = listing.agents.find((a) => a.name === target);
  if (agent)
    found.set(agent.terminal_id, {
      terminal: agent.terminal_id,
      pane: agent.pane_id,
      name: agent.name ?? null,
    });
  for (const item of items) {
    if (item.closed_ms !== null || item.host !== LOCAL_HOST.id || item.name !== target) continue;
    const pane =
      (item.terminal_id === null
        ? undefined
        : listing.panes.find((p) => p.terminal_id === item.terminal_id)) ??
      (item.terminal_id === null && item.pane !== null
        ? listing.panes.find((p) => p.pane_id === item.pane)
        : undefined);
    if (pane === undefined || found.has(pane.terminal_id)) continue;
    found.set(pane.terminal_id, {
      terminal: pane.terminal_id,
      pane: pane.pane_id,
      name: nameOf(listing, pane.terminal_id) ?? item.name,
    });
  }
  if (found.size > 0) return [...found.values()];
  const pane = listedPane(listing, target);
  return pane === undefined ? undefined : [pane];
}
