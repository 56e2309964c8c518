// What a target a sender typed names on this host (spec, "Inbox": send resolves a name or pane on
// any host; this is one host's part, which `host whereis` answers for a peer): a live agent's Herdr
// name, the name of an open child item or tracked pane here, or a pane id.

import type { Item } from '../core/agents/item-types.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import type { ProcessIO } from '../state/io.js';
import { readItems } from '../state/records/queue-items.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Listing } from '../terminal/port-records.js';
import { nameOf, openHerdr, paneWhereabouts, type Whereabouts } from './whereabouts.js';

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
  const pane = await paneWhereabouts(port, target, listing);
  return pane === undefined ? [] : [pane];
}

/** `targetsHere` with this host's terminal and items: what `host whereis` answers. */
export async function targetsOnThisHost(io: ProcessIO, target: string): Promise<Whereabouts[]> {
  const port = await openHerdr({ env: io.env, home: io.home, commandName: 'send' });
  const listing = await port.listAll();
  return targetsHere(port, listing, target, (await readItems(io)).items);
}
