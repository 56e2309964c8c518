// `board`, from every front end: the owner's children, jobs and tickets grouped by what the owner must
// do (service/board/read-board.ts, core/board/board-rule.ts), the document the Pi widget and the
// sidebar draw; and `board --open|--toggle`, which opens, reuses or closes the caller's board docked
// at the left of its tab (service/board/dock.ts). The owner is the one given, else the caller's pane.

import { dismissRow } from '../board/board-seen-file.js';
import { dockCallerBoard } from '../board/dock.js';
import { type Board, readBoard } from '../board/read-board.js';
import { DogsledError } from '../core/common/errors.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';
import type { ProcessIO } from './verb-io.js';

export type { Dismissed } from '../board/board-seen-file.js';
export type { DockResult } from '../board/dock.js';
export type { Board };

/** `owner`: a pane id, else null for the caller's own pane (HERDR_PANE_ID, TMUX_PANE). */
export async function boardOf(io: ProcessIO, owner: string | null): Promise<Board> {
  return readBoard(io, ownerPane(io, owner));
}

/** `board --dismiss ID`: the owner has seen an ATTENTION row, which moves to DONE for that owner. */
export async function dismissBoardRow(io: ProcessIO, owner: string | null, id: string) {
  const pane = ownerPane(io, owner);
  if (id.trim() === '') throw new DogsledError('--dismiss needs a job, ticket or item id');
  return dismissRow(io, pane, id);
}

function ownerPane(io: ProcessIO, owner: string | null): string {
  const pane = owner ?? callerPane(io.env);
  if (pane === null || pane === '') {
    throw new DogsledError(
      'no owner: run it in a Herdr or tmux pane (HERDR_PANE_ID, TMUX_PANE) or give --owner PANE',
    );
  }
  return pane;
}

/** Docks the caller's board beside its pane, or with `toggle` closes one that is open. */
export function dockBoard(io: ProcessIO, request: { toggle: boolean }) {
  return dockCallerBoard(io, request.toggle);
}
