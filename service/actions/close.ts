// `dogsled close PANE [--host H]`: an owner ends a child now (agents/close-child.ts), then its item
// closes (the captured reply stays). --host defaults to the host of the pane's open item, else this
// host; a peer runs the same steps itself (`host close`, peer-actions.ts).

import { type CloseResult, closeChild } from '../agents/close-child.js';
import { type ChildEnd, childEnd } from '../agents/final-reply.js';
import { applyClosures, PANE_GONE } from '../core/agents/item-closing.js';
import type { Item } from '../core/agents/item-types.js';
import { priceTable } from '../core/receipts/prices.js';
import { childReceipt } from '../core/receipts/receipt.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { hostOfFlag } from '../hosts/peer-cleanup.js';
import type { HostIO } from '../state/io.js';
import { branchHolds } from '../state/records/branch-observations.js';
import { readItems, updateItems } from '../state/records/queue-items.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import { openTerminal } from '../terminal/open.js';
import type { TerminalPort } from '../terminal/port.js';
import { needsTerminal } from '../terminal/terminal-errors.js';
import { closeOnPeer } from './peer-actions.js';

export async function closePane(io: HostIO, pane: string, host: string | null): Promise<CloseResult> {
  const open = (await readItems(io)).items.filter((item) => item.closed_ms === null && item.pane === pane);
  const where = host ?? open[0]?.host ?? LOCAL_HOST.id;
  const peer = await hostOfFlag(io, where);
  if (peer !== null) return closeOnPeer(io, peer, pane);
  return closeHere(io, pane, callerPane(io.env));
}

/** Close on this host; `caller` is the caller's own pane here (refused as a target), else null. */
export async function closeHere(io: HostIO, pane: string, caller: string | null): Promise<CloseResult> {
  return (await closeKeeping(io, pane, caller)).result;
}

/** What a closed child's item keeps: its final reply and receipt (null when it had none). */
export type KeptEnd = Pick<Item, 'reply' | 'receipt'>;

/**
 * closeHere, with what the child's item kept (`host close` answers it, so an owner on another host
 * keeps the same on its own item); `kept` is null when the pane was no open agent item's here.
 */
export async function closeKeeping(
  io: HostIO,
  pane: string,
  caller: string | null,
): Promise<{ result: CloseResult; kept: KeptEnd | null }> {
  const port = await openTerminal({ env: io.env, home: io.home, commandName: 'close', warn: io.warn });
  if (port.kind === 'headless') throw needsTerminal('close', port.why);
  const terminal = await port.getPane(pane).then(
    (found) => found.terminal_id,
    () => null,
  );
  const end = await endBeforeClose(io, port, pane, terminal);
  const since = io.now();
  const result = await closeChild({ ...io, port }, { pane, caller, mode: 'close' });
  const [agent] = (await closeItemsOf(io, pane, terminal, 'closed', end, since)).filter(
    (item) => item.kind === 'agent',
  );
  return {
    result,
    kept: agent === undefined ? null : { reply: agent.reply, receipt: agent.receipt ?? null },
  };
}

/**
 * The child's final reply and usage, read while its pane still exists (spec: "close ends it and
 * keeps the reply"), when the pane is an open agent item's here; null when there is none or it
 * cannot be read.
 */
async function endBeforeClose(
  io: HostIO,
  port: TerminalPort,
  pane: string,
  terminal: string | null,
): Promise<ChildEnd | null> {
  const child = (await readItems(io)).items.some(
    (item) => item.kind === 'agent' && item.closed_ms === null && ofPane(item, pane, terminal),
  );
  if (!child) return null;
  try {
    return await childEnd(io, port, await port.getAgent(pane));
  } catch {
    return null;
  }
}

/** This host's item of the pane, or of its terminal (a moved pane keeps its terminal). */
function ofPane(item: Item, pane: string, terminal: string | null): boolean {
  return (
    item.host === LOCAL_HOST.id &&
    (item.pane === pane || (terminal !== null && item.terminal_id === terminal))
  );
}

/**
 * Closes this host's open items of a pane (or its terminal) with `reason`; replies and receipts
 * already captured stay, and an agent item without them keeps `end`'s (what `close` read before the
 * pane went). With `since` (when an explicit close began), an agent item of the pane the service
 * found `pane gone` meanwhile (the close took its pane) is this close's too: it gets `reason` and
 * `end`'s reply and receipt. An item on a peer is never closed here: pane ids repeat across hosts.
 * Resolves with the items it closed, as they now are.
 */
export async function closeItemsOf(
  io: HostIO,
  pane: string,
  terminal: string | null,
  reason: string,
  end: ChildEnd | null = null,
  since: number | null = null,
): Promise<Item[]> {
  const holds = await branchHolds(io);
  const prices = priceTable(io.config.prices);
  return updateItems(io, (items) => {
    const holding = holds(items.items);
    const closing = items.items.filter((item) => item.closed_ms === null && ofPane(item, pane, terminal));
    const ids = closing.map((item) => ({ id: item.id, reason }));
    const raced = new Set(
      items.items
        .filter(
          (item) =>
            since !== null &&
            item.kind === 'agent' &&
            ofPane(item, pane, terminal) &&
            item.close_reason === PANE_GONE &&
            (item.closed_ms ?? 0) >= since,
        )
        .map((item) => item.id),
    );
    const agents = new Set([
      ...closing.filter((item) => item.kind === 'agent').map((item) => item.id),
      ...raced,
    ]);
    const ended = (item: Item): Item => ({
      ...item,
      ...(raced.has(item.id) ? { close_reason: reason } : {}),
      reply: item.reply ?? end?.reply ?? null,
      receipt: item.receipt ?? childReceipt(end?.usage ?? null, prices, item.created_ms, io.now()),
    });
    const withReply =
      end === null && raced.size === 0
        ? items
        : { ...items, items: items.items.map((item) => (agents.has(item.id) ? ended(item) : item)) };
    const { next, closed, changed } = applyClosures(withReply, ids, io.now(), holding);
    const taken = [...closed, ...next.items.filter((item) => raced.has(item.id))];
    return changed || raced.size > 0 ? { result: taken, next } : { result: taken };
  });
}
