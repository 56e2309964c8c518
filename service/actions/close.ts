// `dogsled close PANE [--host H]`: an owner ends a child now (agents/close-child.ts), then its item
// closes (the captured reply stays). --host defaults to the host of the pane's open item, else this
// host; a peer runs the same steps itself (`host close`, peer-actions.ts).

import { type CloseResult, closeChild } from '../agents/close-child.js';
import { finalReply } from '../agents/final-reply.js';
import { applyClosures } from '../core/agents/item-closing.js';
import type { Item } from '../core/agents/item-types.js';
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
  const port = await openTerminal({ env: io.env, home: io.home, commandName: 'close', warn: io.warn });
  if (port.kind === 'headless') throw needsTerminal('close', port.why);
  const terminal = await port.getPane(pane).then(
    (found) => found.terminal_id,
    () => null,
  );
  const reply = await replyBeforeClose(io, port, pane, terminal);
  const result = await closeChild({ ...io, port }, { pane, caller, mode: 'close' });
  await closeItemsOf(io, pane, terminal, 'closed', reply);
  return result;
}

/**
 * The child's final reply, read while its pane still exists (spec: "close ends it and keeps the
 * reply"), when the pane is an open agent item's here; null when there is none or it cannot be read.
 */
async function replyBeforeClose(
  io: HostIO,
  port: TerminalPort,
  pane: string,
  terminal: string | null,
): Promise<string | null> {
  const child = (await readItems(io)).items.some(
    (item) => item.kind === 'agent' && item.closed_ms === null && ofPane(item, pane, terminal),
  );
  if (!child) return null;
  try {
    return await finalReply(io, port, await port.getAgent(pane));
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
 * Closes this host's open items of a pane (or its terminal) with `reason`; replies already captured
 * stay, and an agent item without one keeps `reply` (what `close` read before the pane went). An
 * item on a peer is never closed here: pane ids repeat across hosts.
 */
export async function closeItemsOf(
  io: HostIO,
  pane: string,
  terminal: string | null,
  reason: string,
  reply: string | null = null,
): Promise<void> {
  const holds = await branchHolds(io);
  await updateItems(io, (items) => {
    const holding = holds(items.items);
    const closing = items.items.filter((item) => item.closed_ms === null && ofPane(item, pane, terminal));
    const ids = closing.map((item) => ({ id: item.id, reason }));
    const replied = new Set(
      closing.filter((item) => item.kind === 'agent' && item.reply == null).map((item) => item.id),
    );
    const withReply =
      reply === null || replied.size === 0
        ? items
        : { ...items, items: items.items.map((item) => (replied.has(item.id) ? { ...item, reply } : item)) };
    const { next, changed } = applyClosures(withReply, ids, io.now(), holding);
    return changed ? { result: undefined, next } : { result: undefined };
  });
}
