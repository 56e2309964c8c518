// The public records of §2.4 built from the model: WorkspaceInfo, TabInfo, PaneInfo, AgentInfo and
// PaneLayoutSnapshot. Optional fields are omitted (never null), false booleans like
// `launch_pending` are omitted, and tab/workspace `agent_status` is the most attention-worthy pane
// (blocked > done > working > idle > unknown, Herdr's tab_attention_priority).
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { geometry } from './layout.mjs';
import { readCwd } from './procfs.mjs';
import { compact } from './protocol.mjs';

const PRIORITY = { blocked: 4, done: 3, working: 2, idle: 1, unknown: 0 };

export function rollup(statuses) {
  let best = 'unknown';
  for (const status of statuses) if (PRIORITY[status] > PRIORITY[best]) best = status;
  return best;
}

/** Git checkout root containing `dir` (a `.git` dir or file), else undefined. */
export function gitRoot(dir) {
  let current = dir;
  for (;;) {
    if (existsSync(join(current, '.git'))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

export function workspaceLabel(ws) {
  if (ws.customLabel) return ws.customLabel;
  if (ws.worktree) return basename(ws.worktree.checkout_path);
  const root = gitRoot(ws.cwd);
  return basename(root ?? ws.cwd) || ws.cwd;
}

export function paneCwd(pane) {
  const pid = pane.terminal.process.pid;
  return (pid !== undefined && !pane.terminal.process.exited && readCwd(pid)) || pane.terminal.launchCwd;
}

/** cwd of the foreground job when it is not the shell itself. */
function foregroundCwd(model, pane) {
  const job = model.agents.jobOf(pane);
  return job === undefined ? undefined : readCwd(job);
}

export function paneInfo(model, pane) {
  const terminal = pane.terminal;
  const agent = model.agents.view(pane);
  return compact({
    pane_id: pane.id,
    terminal_id: terminal.id,
    workspace_id: pane.workspaceId,
    tab_id: pane.tabId,
    focused: model.isPaneFocused(pane),
    cwd: paneCwd(pane),
    foreground_cwd: foregroundCwd(model, pane),
    label: pane.label,
    agent: agent.kind,
    title: terminal.title,
    display_agent: terminal.displayAgent,
    agent_status: agent.status,
    state_labels: terminal.stateLabels,
    tokens: terminal.tokens.snapshot(),
    agent_session: agent.session,
    revision: terminal.revision,
  });
}

export function agentInfo(model, pane) {
  const terminal = pane.terminal;
  const agent = model.agents.view(pane);
  return compact({
    terminal_id: terminal.id,
    name: agent.name,
    agent: agent.kind,
    title: terminal.title,
    display_agent: terminal.displayAgent,
    agent_status: agent.status,
    state_labels: terminal.stateLabels,
    tokens: terminal.tokens.snapshot(),
    agent_session: agent.session,
    workspace_id: pane.workspaceId,
    tab_id: pane.tabId,
    pane_id: pane.id,
    focused: model.isPaneFocused(pane),
    launch_pending: agent.launchPending || undefined,
    interactive_ready: agent.interactiveReady || undefined,
    state_change_seq: agent.stateChangeSeq,
    cwd: paneCwd(pane),
    foreground_cwd: foregroundCwd(model, pane),
    revision: terminal.revision,
  });
}

export function tabInfo(model, tab) {
  const ws = model.workspaces.get(tab.workspaceId);
  const panes = model.tabPanes(tab);
  return {
    tab_id: tab.id,
    workspace_id: tab.workspaceId,
    number: [...ws.tabs.keys()].indexOf(tab.id) + 1,
    label: tab.customLabel ?? String([...ws.tabs.keys()].indexOf(tab.id) + 1),
    focused: model.activeWorkspaceId === ws.id && ws.activeTabId === tab.id,
    pane_count: panes.length,
    agent_status: rollup(panes.map((pane) => model.agents.view(pane).status)),
  };
}

export function workspaceInfo(model, ws) {
  const panes = [...ws.tabs.values()].flatMap((tab) => model.tabPanes(tab));
  return compact({
    workspace_id: ws.id,
    number: [...model.workspaces.keys()].indexOf(ws.id) + 1,
    label: workspaceLabel(ws),
    focused: model.activeWorkspaceId === ws.id,
    pane_count: panes.length,
    tab_count: ws.tabs.size,
    active_tab_id: ws.activeTabId,
    agent_status: rollup(panes.map((pane) => model.agents.view(pane).status)),
    tokens: ws.tokens.snapshot(),
    worktree: ws.worktree,
  });
}

export function layoutSnapshot(model, tab) {
  const area = model.area();
  const { panes, splits } = geometry(tab.root, area);
  return {
    workspace_id: tab.workspaceId,
    tab_id: tab.id,
    zoomed: tab.zoomed,
    area,
    focused_pane_id: tab.focusedPaneId,
    panes: panes.map((entry) => ({
      pane_id: entry.paneId,
      focused: entry.paneId === tab.focusedPaneId,
      rect: entry.rect,
    })),
    splits,
  };
}
