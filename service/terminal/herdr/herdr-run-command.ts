// Launching a job's command in Herdr: open a new tab (or workspace) at the job's directory, then type
// the POSIX-quoted argv plus Enter into its shell. The headless backend spawns instead (headless.ts).
// The shell buffers the typed line until it is ready, so no wait for a prompt is needed.

import type { LaunchedCommand, RunCommandOptions, TerminalPort } from '../port.js';
import { shellQuote } from '../typed-command.js';

export async function runInHerdr(port: TerminalPort, options: RunCommandOptions): Promise<LaunchedCommand> {
  // Quote first: an argument that cannot be typed must fail before a tab is opened.
  const line = shellQuote(options.argv);
  const common = { cwd: options.cwd, label: options.label, env: options.env, focus: false };
  const pane = options.newWorkspace
    ? (await port.createWorkspace(common)).root_pane
    : (await port.createTab({ ...common, workspaceId: options.workspaceId })).root_pane;
  try {
    await port.runLine(pane.pane_id, line);
  } catch (error) {
    // The line may not have reached the shell: close what was opened for it, so no empty shell is
    // left behind (a job whose exec did start runs on in its supervisor's own session).
    const close = options.newWorkspace ? port.closeWorkspace(pane.workspace_id) : port.closeTab(pane.tab_id);
    await close.catch(() => undefined);
    throw error;
  }
  return {
    paneId: pane.pane_id,
    workspaceId: pane.workspace_id,
    tabId: pane.tab_id,
    terminalId: pane.terminal_id,
  };
}
