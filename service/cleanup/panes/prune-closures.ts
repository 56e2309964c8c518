// The Herdr side of a worktree removal (spec: "teardown, the panes and workspace, unlock, git
// worktree remove…"): the panes that work in the worktree and the workspace that shows it. They are
// checked before the teardown (a pane that is not an idle shell keeps the worktree: a skip) and
// again right before they close, by terminal id, so nothing busy is ever closed with a worktree.

import { paneActivity } from '../../core/holds.js';
import { contains } from '../../core/target-rule.js';
import { DogsledError, messageOf } from '../../errors.js';
import { isTerminalError, TerminalError } from '../../terminal/errors.js';
import type { TerminalPort } from '../../terminal/port.js';
import type { Snapshot } from '../../terminal/records.js';
import { type ReadPane, readPanes, realOrSame } from './facts.js';

export type WorktreePanes =
  /** A pane that works in it (or in the workspace that shows it) is busy: the worktree stays. */
  | { kind: 'busy'; reason: string }
  /** Closes them after the teardown; throws when one got busy meanwhile. Returns the closed pane ids. */
  | { kind: 'ready'; close: () => Promise<string[]> };

interface Found {
  workspace: string | null;
  panes: ReadPane[];
  busy: string | null;
}

export async function worktreePanes(
  port: TerminalPort,
  path: string,
  callerPaneId: string | null,
): Promise<WorktreePanes> {
  const first = await find(port, path, callerPaneId);
  if (first.busy !== null) return { kind: 'busy', reason: first.busy };
  return {
    kind: 'ready',
    close: async () => {
      const now = await find(port, path, callerPaneId);
      if (now.busy !== null) throw new DogsledError(`kept after its teardown: ${now.busy}`);
      const closed: string[] = [];
      if (now.workspace !== null) {
        const own = now.panes.filter((pane) => pane.info.workspace_id === now.workspace);
        if (await closing(() => port.closeWorkspace(now.workspace as string))) {
          closed.push(...own.map((pane) => pane.info.pane_id));
        }
      }
      for (const pane of now.panes) {
        if (pane.info.workspace_id === now.workspace) continue;
        if (await closing(() => port.closePane(pane.info.pane_id))) closed.push(pane.info.pane_id);
      }
      return closed;
    },
  };
}

/** Runs a close; false when the target was already gone. */
export async function closing(run: () => Promise<void>): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (error) {
    if (isTerminalError(error, 'pane_not_found') || isTerminalError(error, 'workspace_not_found'))
      return false;
    if (!(error instanceof TerminalError)) throw error;
    throw new DogsledError(`cannot close its Herdr panes: ${messageOf(error)}`);
  }
}

async function find(port: TerminalPort, path: string, callerPaneId: string | null): Promise<Found> {
  let snapshot: Snapshot;
  try {
    snapshot = await port.snapshot();
  } catch (error) {
    if (!(error instanceof TerminalError)) throw error;
    throw new DogsledError(`cannot read Herdr's panes: ${messageOf(error)}`);
  }
  const checkout = await realOrSame(path);
  let workspace: string | null = null;
  for (const candidate of snapshot.workspaces) {
    if (candidate.worktree && (await realOrSame(candidate.worktree.checkout_path)) === checkout) {
      workspace = candidate.workspace_id;
    }
  }
  const inside = async (dir: string | undefined): Promise<boolean> =>
    dir !== undefined && contains(checkout, await realOrSame(dir));
  const chosen: Snapshot['panes'] = [];
  for (const pane of snapshot.panes) {
    if (pane.workspace_id === workspace || (await inside(pane.cwd)) || (await inside(pane.foreground_cwd))) {
      chosen.push(pane);
    }
  }
  const panes = await readPanes(port, { ...snapshot, panes: chosen });
  const callerTerminal = await terminalOf(port, snapshot, callerPaneId);
  for (const pane of panes) {
    if (pane.info.pane_id === callerPaneId || pane.info.terminal_id === callerTerminal) {
      return { workspace, panes, busy: `the caller's pane ${pane.info.pane_id} works in it` };
    }
    const activity = paneActivity(pane.hold);
    if (activity !== null) return { workspace, panes, busy: `pane ${pane.info.pane_id} ${activity}` };
  }
  return { workspace, panes, busy: null };
}

/** The caller's terminal: HERDR_PANE_ID may be an older alias the snapshot no longer lists. */
async function terminalOf(port: TerminalPort, snapshot: Snapshot, paneId: string | null) {
  if (paneId === null) return null;
  const listed = snapshot.panes.find((pane) => pane.pane_id === paneId);
  if (listed) return listed.terminal_id;
  try {
    return (await port.currentPane(paneId)).terminal_id;
  } catch (error) {
    if (!(error instanceof TerminalError)) throw error;
    return null;
  }
}
