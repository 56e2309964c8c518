// `board --json [--owner PANE]` in its common case, as a bundle of its own that loads no zod, no
// commander and no terminal layer: the owner's items, tickets, agent panes, jobs and dismissals read
// once each and checked by hand (service/actions/board-glance.ts), printed as the full command prints
// them (commands/board.ts). Any other case (a child started with a branch, whose TO LAND row reads
// branch observations and peers; a file in doubt; no owner; --open, --toggle, --dismiss; the table
// form) returns NOT_ANSWERED before anything is written, and dispatch.ts runs the full command line,
// which answers (and quarantines) as before.

import { glanceBoard } from '../../service/actions/board-glance.js';
import { leanEntry } from './entry.js';

export const run = leanEntry('board', async (flags: { owner?: string; json?: boolean }, ctx) => {
  if (flags.json !== true) return undefined;
  const board = glanceBoard(ctx, flags.owner ?? null);
  return board === undefined ? undefined : `${JSON.stringify(board)}\n`;
});
