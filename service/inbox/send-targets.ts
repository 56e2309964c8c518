// What a target a sender typed names on this host (spec, "Inbox": send resolves a name or pane on
// any host; this is one host's part, which `host whereis` answers for a peer): a live agent's Herdr
// name, the name of an open child item or tracked pane here, or a pane id.

import type { Item } from '../core/agents/item-types.js';
import type { ProcessIO } from '../state/io.js';
import { readItems } from '../state/records/queue-items.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Listing } from '../terminal/port-records.js';
import { targetsInListing } from './listing-targets.js';
import { openHerdr, paneWhereabouts, type Whereabouts } from './whereabouts.js';

/**
 * Every inbox a target a sender typed names on this host: a live agent's Herdr name (unique among
 * live agents), the name of an open child item or tracked pane here (`agent --name`, `track
 * --name`), found by its terminal, and otherwise a pane id (a moved pane's old id resolves through
 * Herdr). One terminal is listed once; several mean the name is ambiguous here.
 */
export async function targetsHere(
  port: TerminalPort,
  listing: Listing,
  target: string,
  items: readonly Item[],
): Promise<Whereabouts[]> {
  const found = targetsInListing(listing, target, items);
  if (found !== undefined) return found;
  const pane = await paneWhereabouts(port, target, listing);
  return pane === undefined ? [] : [pane];
}

/** `targetsHere` with this host's terminal and items: what `host whereis` answers. */
export async function targetsOnThisHost(io: ProcessIO, target: string): Promise<Whereabouts[]> {
  const port = await openHerdr({ env: io.env, home: io.home, commandName: 'send' });
  const listing = await port.listAll();
  return targetsHere(port, listing, target, (await readItems(io)).items);
}
