// Stalls of children whose owner is on another host (spec, "Stalls and check-ins": parents.json
// identifies tracked children on their own host). The owner's service cannot see this host's
// transcripts, so this host's watchdog tells it: a stalled child linked in parents.json gets its
// owner a check-in through this host's outbox, which the owner's service writes into the owner's
// inbox. Once per stall episode: the ref names the episode, and the outbox and the owner's inbox
// each take a ref once, so a restart repeats nothing the owner still has.

import { hostname } from 'node:os';
import type { OwnerFacts } from '../../core/agents/watchdog-rule.js';
import { messageOf } from '../../core/common/errors.js';
import { checkInText } from '../../core/inbox/check-in-text.js';
import { pendingRecord, serviceSender } from '../../core/inbox/inbox.js';
import { LOCAL_HOST } from '../../hosts/local-facts.js';
import { postForHost } from '../../inbox/outbox.js';
import { newId } from '../../state/engine/ids.js';
import type { StateIO } from '../../state/io.js';
import { childFacts, type WatchdogFacts } from '../../watchdog/watchdog-facts.js';

export interface StallForwarding {
  /** Episodes told in this service run, by ref: not posted again. */
  told: Set<string>;
  /** Adds plain pane text for agents whose transcript format is unknown. */
  paneText: (facts: OwnerFacts) => Promise<OwnerFacts>;
  warn: (line: string) => void;
}

/**
 * Posts a check-in for each remote owner of a stalled linked child (its other open children here
 * listed too); returns the refs posted. The owner's state is not visible from here, so its hooks
 * deliver the record at its next stop or prompt, as they deliver any.
 */
export async function forwardStalls(
  io: StateIO,
  facts: WatchdogFacts,
  forwarding: StallForwarding,
): Promise<string[]> {
  const posted: string[] = [];
  for (const [terminal, link] of Object.entries(facts.parents?.children ?? {})) {
    const pane = facts.panes.find((p) => p.terminal_id === terminal);
    if (link.owner === null || pane === undefined || pane.stalled_since_ms === null) continue;
    const item = facts.items.find((entry) => entry.id === link.item && entry.closed_ms === null);
    if (item === undefined) continue;
    const ref = `stall:${item.id}:${pane.stalled_since_ms}`;
    if (forwarding.told.has(ref)) continue;
    const now = io.now();
    // This host by its name: `local` on the owner's host would mean the owner's own.
    const here = hostname();
    const siblings = facts.items.filter(
      (entry) =>
        entry.closed_ms === null && entry.owner_host === link.owner_host && entry.owner_pane === link.owner,
    );
    const owner: OwnerFacts = {
      owner: link.owner,
      state: null,
      reader: true,
      children: siblings.map((entry) => ({ ...childFacts(entry, facts.panes), host: here })),
      lifecycle_ms: -Infinity,
      orphans: facts.orphans,
    };
    const text = checkInText(await forwarding.paneText(owner), [], ['stall'], now);
    const record = pendingRecord(
      { id: newId('m'), kind: 'check_in', sender: serviceSender(LOCAL_HOST.id), text, ref },
      now,
    );
    try {
      await postForHost(io, link.owner_host, item.id, { ref, message: { owner_pane: link.owner, record } });
      forwarding.told.add(ref);
      posted.push(ref);
    } catch (error) {
      forwarding.warn(`stall of ${item.name ?? item.id} for its owner elsewhere: ${messageOf(error)}`);
    }
  }
  return posted;
}
