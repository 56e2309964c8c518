// The caller's workspace across hosts (spec, "Jobs, agents, and owners": on a remote host, work
// outside a repository opens in the workspace with the caller's workspace name, created when
// absent). The owner's side names it from its own Herdr; the peer's side finds or makes it there.

import { callerWorkspaceOf } from '../jobs/tab-placement-facts.js';
import type { TerminalPort } from '../terminal/port.js';
import { TerminalError } from '../terminal/terminal-errors.js';

/** The label of the workspace `pane` is in, or null (no pane, headless, Herdr cannot say). */
export async function callerWorkspaceName(port: TerminalPort, pane: string | null): Promise<string | null> {
  try {
    const id = await callerWorkspaceOf(port, pane);
    if (id === null) return null;
    const label = (await port.listWorkspaces()).find((w) => w.workspace_id === id)?.label;
    return label === undefined || label === '' ? null : label;
  } catch (error) {
    if (error instanceof TerminalError) return null;
    throw error;
  }
}

/** The id of the first workspace here labelled `name`, else of a new one so labelled at `cwd`. */
export async function workspaceNamed(port: TerminalPort, name: string, cwd: string): Promise<string> {
  const found = (await port.listWorkspaces()).find((w) => w.label === name);
  if (found !== undefined) return found.workspace_id;
  return (await port.createWorkspace({ cwd, label: name, focus: false })).workspace.workspace_id;
}
