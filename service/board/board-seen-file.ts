// The owner's dismissals of ATTENTION rows (board-seen.json; read.ts reads them for the board), made by
// `board --dismiss ID` and the sidebar's `d`. Only this file changes; job records, items and tickets
// are never touched, so `ps`, `logs` and `wait` still report the failure as it was.

import { type BoardSeen, boardRows } from '../core/board/board-rule.js';
import { dismissTarget, keptSeen } from '../core/board/board-seen.js';
import { DogsledError } from '../core/common/errors.js';
import { readState, updateState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { BoardSeenSchema } from '../state/schemas/sidebar-schemas.js';
import { readBoard } from './read-board.js';

export interface Dismissed {
  owner: string;
  kind: BoardSeen['kind'];
  id: string;
  /** The row's state (`exit 3`, `blocked`, `failed`) and title, as the board showed them. */
  state: string;
  title: string;
  since_ms: number | null;
  seen_ms: number;
  /** True when it had been dismissed already (nothing changed). */
  already: boolean;
}

/** Marks the ATTENTION row `id` of `owner`'s board seen; it moves to DONE. */
export async function dismissRow(io: StateIO, owner: string, id: string): Promise<Dismissed> {
  // The file first: one that cannot be read (a directory, a FIFO) is refused here, in one line,
  // before the board reader would warn about it.
  await readState(io.paths.boardSeen, BoardSeenSchema, io);
  const board = await readBoard(io, owner);
  const target = dismissTarget(boardRows(board), id, owner);
  if (target.kind === 'refused') throw new DogsledError(target.reason);
  const { row } = target;
  const now = io.now();
  const done: Dismissed = {
    owner,
    kind: row.kind,
    id: row.id,
    state: row.state,
    title: row.title,
    since_ms: row.since_ms,
    seen_ms: row.seen_ms ?? now,
    already: target.kind === 'seen',
  };
  if (target.kind === 'seen') return done;
  const entry = { owner, kind: row.kind, id: row.id, since_ms: row.since_ms, seen_ms: now };
  await updateState(io.paths.boardSeen, BoardSeenSchema, io, (current) => ({
    result: undefined,
    next: { version: 1 as const, ...(current ?? {}), seen: keptSeen([...(current?.seen ?? []), entry], now) },
  }));
  return done;
}
