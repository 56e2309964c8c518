// The lean `board --json` (cli/hot/board-lean.ts): the owner's board when none of its rows needs
// more than items.json, queue.json, host.json (its agent panes), its jobs' records and
// board-seen.json, each read once and checked whole by hand: no child started with a branch (whose
// TO LAND row reads branch observations and peers). undefined in every other case (a file in doubt
// included), and boardOf (board.ts) answers through readBoard.

import { type Board, type BoardAgentPane, type BoardJob, boardOf } from '../core/board/board-rule.js';
import { mayLand } from '../core/inbox/to-land-rule.js';
import { LOCAL_HOST } from '../hosts/local-view.js';
import { BoardSeenCheck } from '../state/checks/board-seen-check.js';
import { HostSnapshotCheck } from '../state/checks/host-snapshot-check.js';
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
  if (mine.some((item) => mayLand(item, pane))) return undefined;
  // Read whatever the owner has, as readBoard does: a snapshot in doubt is the full reader's to
  // quarantine (and to show without its panes).
  const snapshot = glanceRecord(io.paths.host, HostSnapshotCheck);
  if (snapshot === undefined) return undefined;
  const agentPanes = new Map<string, BoardAgentPane>();
  for (const agent of snapshot.found ? (snapshot.value.probe.agent_panes ?? []) : []) {
    agentPanes.set(agent.pane, agent);
  }
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
  const input = {
    owner: pane,
    items: mine,
    tickets: work.tickets,
    jobs,
    agentPanes,
    toLand: [],
    seen: mySeen,
  };
  return boardOf(input, io.now());
}
