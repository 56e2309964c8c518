// The anchor closing rule (spec, "Items and closing"): when dogsled's `--branch` made Herdr open the
// main checkout's workspace as the anchor (recorded as agent-worktree-anchor) and no linked worktree
// of the repository is open in Herdr any more, close closes that anchor too, but only while it is
// unfocused, not the caller's, and holds one pane with no agent. Anything else keeps it.

import { rm } from 'node:fs/promises';
import type { TerminalPort } from '../terminal/port.js';
import { isTerminalError } from '../terminal/terminal-errors.js';
import { anchorPath, readAnchor } from './anchor.js';

/** Null when no anchor was recorded; else whether it was closed. */
export async function closeIdleAnchor(
  port: TerminalPort,
  repo: { main: string; commonDir: string; callerWorkspace: string | null },
): Promise<boolean | null> {
  const anchor = await readAnchor(repo.commonDir);
  if (anchor === null) return null;
  const listed = await port.listWorktrees({ cwd: repo.main }).catch(() => null);
  if (listed === null) return false;
  if (listed.worktrees.some((w) => w.is_linked_worktree && w.open_workspace_id !== undefined)) return false;
  const listing = await port.listAll();
  const workspace = listing.workspaces.find((ws) => ws.workspace_id === anchor);
  if (workspace === undefined) {
    // Closed by someone else: the record has nothing left to name.
    await rm(anchorPath(repo.commonDir), { force: true });
    return false;
  }
  const panes = listing.panes.filter((pane) => pane.workspace_id === anchor);
  const agent = listing.agents.some((entry) => entry.workspace_id === anchor);
  const idle =
    !workspace.focused &&
    anchor !== repo.callerWorkspace &&
    panes.length === 1 &&
    !agent &&
    panes[0]?.agent === undefined;
  if (!idle) return false;
  try {
    await port.closeWorkspace(anchor);
  } catch (error) {
    if (!isTerminalError(error, 'workspace_not_found')) throw error;
  }
  await rm(anchorPath(repo.commonDir), { force: true });
  return true;
}
