// `board`, from every front end: the owner's children, jobs and tickets grouped by what the owner must
// do (service/board/read-board.ts, core/board/board-rule.ts), the document the Pi widget and the
// sidebar draw; and `board --open|--toggle`, which opens, reuses or closes the caller's board docked
// at the left of its tab (service/board/dock.ts). The owner is the one given, else the caller's pane.

import { dockCallerBoard } from '../board/dock.js';
import { type Board, readBoard } from '../board/read-board.js';
import { DogsledError } from '../core/common/errors.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import type { ProcessIO } from './verb-io.js';

export type { DockResult } from '../board/dock.js';
export type { Board };

/** `owner`: a pane id, else null for the caller's own pane (HERDR_PANE_ID, TMUX_PANE). */
export async function boardOf(io: ProcessIO, owner: string | null): Promise<Board> {
  const pane = owner ?? callerPane(io.env);
  if (pane === null || pane === '') {
    throw new DogsledError(
      'no owner: run it in a Herdr or tmux pane (HERDR_PANE_ID, TMUX_PANE) or give --owner PANE',
    );
  }
  return readBoard(io, pane);
}

/** Docks the caller's board beside its pane, or with `toggle` closes one that is open. */
export function dockBoard(io: ProcessIO, request: { toggle: boolean }) {
  return dockCallerBoard(io, request.toggle);
}
