// The pane a child without `--branch` starts in: an empty shell where the tab rules put work (spec,
// "Jobs, agents, and owners"): where its repository is shown, else a new workspace for the repository,
// else a new tab in the caller's (or the active) workspace. Herdr's own worktree verbs open a
// repository's workspace, so Herdr links it and later work there finds it.

import type { TabPlacement } from '../core/jobs/tab-placement.js';
import type { GitIO } from '../git/run-git.js';
import { placeJobTab } from '../jobs/tab-placement-facts.js';
import type { Env, TerminalPort } from '../terminal/port.js';
import type { Pane } from '../terminal/port-records.js';
import { TerminalError } from '../terminal/terminal-errors.js';

export interface AgentPane {
  pane: string;
  terminal: string;
  workspace: string;
  placement: TabPlacement;
}

export async function openAgentPane(
  port: TerminalPort,
  options: { cwd: string; callerWorkspace: string | null; label: string; env: Env; git: GitIO },
): Promise<AgentPane> {
  const { cwd, label, env } = options;
  const placement = await placeJobTab(port, cwd, options.callerWorkspace, options.git);
  options.git.signal?.throwIfAborted();
  let pane: Pane;
  if (placement.kind === 'workspace') {
    pane = await newWorkspacePane(port, placement, cwd, label, env);
  } else {
    const tab = await port.createTab({
      ...(placement.kind === 'tab' ? { workspaceId: placement.workspace } : {}),
      cwd,
      label,
      focus: false,
      env,
    });
    pane = tab.root_pane;
  }
  return { pane: pane.pane_id, terminal: pane.terminal_id, workspace: pane.workspace_id, placement };
}

/**
 * A repository's new workspace through `worktree open` when Herdr can (its root pane is the child's,
 * or a new tab when the workspace was already open), else a plain workspace at `cwd`.
 */
async function newWorkspacePane(
  port: TerminalPort,
  placement: Extract<TabPlacement, { kind: 'workspace' }>,
  cwd: string,
  label: string,
  env: Env,
): Promise<Pane> {
  if (placement.shows !== null) {
    try {
      const opened = await port.openWorktree({
        cwd: placement.shows,
        path: placement.shows,
        label: placement.label,
        focus: false,
      });
      const workspaceId = opened.workspace.workspace_id;
      // The root pane of a workspace just opened is an empty shell in the checkout; reuse it only
      // for work in the checkout itself that needs no environment (`worktree open` takes none).
      if (!opened.already_open && cwd === placement.shows && Object.keys(env).length === 0)
        return opened.root_pane;
      return (await port.createTab({ workspaceId, cwd, label, focus: false, env })).root_pane;
    } catch (error) {
      if (!(error instanceof TerminalError)) throw error;
    }
  }
  return (await port.createWorkspace({ cwd, label: placement.label, focus: false, env })).root_pane;
}
