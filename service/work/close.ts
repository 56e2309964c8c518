// `dogsled close PANE [--host H]`: an owner ends a child now (agents/close-child.ts), then its item
// closes (the captured reply stays). --host defaults to the host of the pane's open item, else this
// host; only this host's panes can be closed in this build.

import { type CloseResult, closeChild } from '../agents/close-child.js';
import { applyClosures, itemsHoldingBranches } from '../core/item-closing.js';
import { findHost } from '../core/placement.js';
import { shown } from '../core/visible.js';
import { DogsledError } from '../errors.js';
import { LOCAL_HOST } from '../hosts/local.js';
import { readBranchObservations } from '../state/branch-observations.js';
import type { HostIO } from '../state/io.js';
import { readItems, updateItems } from '../state/work.js';
import { needsHerdr } from '../terminal/errors.js';
import { callerPane } from '../terminal/herdr-env.js';
import { openTerminal } from '../terminal/open.js';

export async function closePane(io: HostIO, pane: string, host: string | null): Promise<CloseResult> {
  const open = (await readItems(io)).items.filter((item) => item.closed_ms === null && item.pane === pane);
  const where = host ?? open[0]?.host ?? LOCAL_HOST.id;
  if (findHost([LOCAL_HOST], where) === undefined) {
    throw new DogsledError(
      `--host ${shown(where)}: only this host (${LOCAL_HOST.id}) can be closed in this build`,
    );
  }
  const port = await openTerminal({ env: io.env, home: io.home, commandName: 'close', warn: io.warn });
  if (port.kind === 'headless') throw needsHerdr('close', port.why);
  const terminal = await port.getPane(pane).then(
    (found) => found.terminal_id,
    () => null,
  );
  const result = await closeChild({ ...io, port }, { pane, caller: callerPane(io.env), mode: 'close' });
  await closeItemsOf(io, pane, terminal, 'closed');
  return result;
}

/** Closes the open items of a pane (or its terminal) with `reason`; replies already captured stay. */
export async function closeItemsOf(
  io: HostIO,
  pane: string,
  terminal: string | null,
  reason: string,
): Promise<void> {
  const branches = await readBranchObservations(io).catch(() => undefined);
  await updateItems(io, (items) => {
    // Expiry rides along: an unreadable branches.json drops nothing.
    const holding =
      branches === undefined
        ? new Set(items.items.map((item) => item.id))
        : itemsHoldingBranches(items.items, branches);
    const ids = items.items
      .filter(
        (item) =>
          item.closed_ms === null &&
          (item.pane === pane || (terminal !== null && item.terminal_id === terminal)),
      )
      .map((item) => ({ id: item.id, reason }));
    const { next, changed } = applyClosures(items, ids, io.now(), holding);
    return changed ? { result: undefined, next } : { result: undefined };
  });
}
