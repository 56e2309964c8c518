// Reads what the board rule needs for one owner from cached state only: items.json and queue.json,
// the job records of the owner's jobs, the agent panes of the host snapshot, and the owner's TO LAND
// rows from the one reader the stop gate and prompt context use (queue/to-land-rows.ts), and the
// owner's dismissals (board-seen.json). Nothing is probed
// and nothing is written (a job whose wrapper died is finalized by the service, not by a reader).
// `dogsled board`, the sidebar and (later) the Pi widget call readBoard.

import {
  type BoardAgentPane,
  type BoardJob,
  type BoardSeen,
  type Board as BoardT,
  boardOf,
} from '../core/board/board-rule.js';
import { messageOf } from '../core/common/errors.js';
import { LOCAL_HOST } from '../hosts/local-facts.js';
import { readToLand } from '../queue/to-land-rows.js';
import { readState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { readJobRecord } from '../state/records/job-records.js';
import { readItems, readQueue } from '../state/records/queue-items.js';
import { HostSnapshotSchema } from '../state/schemas/host-schemas.js';
import { BoardSeenSchema } from '../state/schemas/sidebar-schemas.js';

export type Board = BoardT;

export async function readBoard(io: StateIO, owner: string): Promise<Board> {
  const [items, queue, snapshot, seen] = await Promise.all([
    readItems(io),
    readQueue(io),
    readState(io.paths.host, HostSnapshotSchema, io).catch(() => undefined),
    readSeen(io, owner),
  ]);
  const mine = items.items.filter((item) => item.owner === owner);
  const jobs = new Map<string, BoardJob>();
  // Remote hosts' jobs arrive through their snapshot caches with peers; this host's are read whole.
  await Promise.all(
    mine
      .filter((item) => item.job !== null && item.host === LOCAL_HOST.id)
      .map(async (item) => {
        try {
          const record = await readJobRecord(io.paths, item.job as string);
          jobs.set(record.id, record);
        } catch (error) {
          // A record that expired is simply gone; one that cannot be read is shown as missing on
          // an open item, and the reader says why.
          if (messageOf(error).startsWith('unknown job')) return;
          io.warn(`dogsled: warning: board: job ${item.job}: ${messageOf(error)}`);
        }
      }),
  );
  const agentPanes = new Map<string, BoardAgentPane>();
  for (const pane of snapshot?.probe.agent_panes ?? []) agentPanes.set(pane.pane, pane);
  const panes = snapshot?.probe.agent_panes ?? [];
  const toLand = await readToLand(io, owner, mine, panes).catch((error: unknown) => {
    io.warn(`dogsled: warning: board: TO LAND: ${messageOf(error)}`);
    return [];
  });
  return boardOf({ owner, items: mine, tickets: queue.tickets, jobs, agentPanes, toLand, seen }, io.now());
}

/**
 * The owner's dismissals (board-seen.json). The board is read by hooks that must not fail on it, so a
 * file that cannot be read is no dismissals, with a warning; a corrupt one is quarantined as usual.
 */
export async function readSeen(io: StateIO, owner: string): Promise<BoardSeen[]> {
  try {
    const file = await readState(io.paths.boardSeen, BoardSeenSchema, io);
    return (file?.seen ?? []).filter((entry) => entry.owner === owner);
  } catch (error) {
    io.warn(`dogsled: warning: board: ${io.paths.boardSeen}: ${messageOf(error)}`);
    return [];
  }
}
