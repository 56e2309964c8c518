// The lean `board --json` (cli/hot/board-lean.ts): the owner's board when none of its rows needs
// more than items.json, queue.json, its jobs' records and board-seen.json, each read once and
// checked whole by hand: no open child in a pane (whose row reads the host snapshot's agent panes)
// and no child started with a branch (whose TO LAND row reads branch observations and peers).
// undefined in every other case, and boardOf (board.ts) answers through readBoard.

import { type Board, type BoardJob, boardOf } from '../core/board/board-rule.js';
import { mayLand } from '../core/inbox/to-land-rule.js';
import { LOCAL_HOST } from '../hosts/local-view.js';
import { BoardSeenCheck } from '../state/checks/board-seen-check.js';
import { glanceRecord } from '../state/engine/glance-file.js';
import type { ProcessIO } from '../state/io.js';
import { glanceJobRecord } from '../state/records/jobs-glance.js';
import { glanceWorkRecords } from '../state/records/work-glance.js';
import { callerPane } from '../terminal/herdr/herdr-env.js';

/** `owner`: a pane id, else null for the caller's own pane, as boardOf (board.ts) takes it. */
export function glanceBoard(io: ProcessIO, owner: string | null): Board | undefined {
  const pane = owner ?? callerPane(io.env);
  // No owner: the full command's to refuse.
  if (pane === null || pane === '') return undefined;
  const work = glanceWorkRecords(io);
  if (work === undefined) return undefined;
  const mine = work.items.filter((item) => item.owner === pane);
  const panesNeeded = mine.some(
    (item) => item.kind === 'agent' && item.closed_ms === null && item.pane !== null,
  );
  if (panesNeeded || mine.some((item) => mayLand(item, pane))) return undefined;
  const jobs = new Map<string, BoardJob>();
  for (const item of mine) {
    if (item.job === null || item.host !== LOCAL_HOST.id) continue;
    const record = glanceJobRecord(io.paths, item.job);
    if (record === undefined) return undefined;
    if (record !== null) jobs.set(record.id, record);
  }
  const seen = glanceRecord(io.paths.boardSeen, BoardSeenCheck);
  if (seen === undefined) return undefined;
  const mySeen = seen.found ? seen.value.seen.filter((entry) => entry.owner === pane) : [];
  return boardOf(
    {
      owner: pane,
      items: mine,
      tickets: work.tickets,
      jobs,
      agentPanes: new Map(),
      toLand: [],
      seen: mySeen,
    },
    io.now(),
  );
}
