// The fake server's world: workspaces (sidebar order) → tabs → panes (a split tree per tab), each
// pane owning a terminal with a real process. Owns creation, the close rules of §2.5 (last pane
// removes its tab, last tab closes the workspace, no tab_closed for an implicit tab removal) and
// focus. Workspace ids come from a server-global counter, tab/pane ids from per-workspace ones.
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { AgentTracker } from './agents.mjs';
import { EventBus } from './events.mjs';
import { encodeNumber, terminalId } from './ids.mjs';
import { leaf, paneIds, removeLeaf, splitLeaf } from './layout.mjs';
import { TokenStore } from './metadata.mjs';
import { killSessions } from './procfs.mjs';
import { ApiError } from './protocol.mjs';
import { PaneProcess } from './pty.mjs';
import { layoutSnapshot, paneCwd, paneInfo, tabInfo, workspaceInfo } from './records.mjs';

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class Model {
  workspaces = new Map();
  panes = new Map();
  /** Every pane process not yet ended, closed panes included, so shutdown can reap them all. */
  processes = new Set();
  activeWorkspaceId = undefined;
  #workspaceCounter = 0;

  /** options: {version, protocol, socketPath, binPath, shell, rows, cols, env, settleMs, detectMs, promptDelayMs, stallMs} */
  constructor(options) {
    this.options = options;
    this.events = new EventBus();
    // detected_status: the state of an agent found by process alone (no report, no _fake.agent.set_status).
    // `unknown` keeps readiness in the hands of reports and tests; `idle` mimics screen detection.
    this.config = { toast_delivery: 'off', confirm_close: true, detected_status: 'unknown' };
    this.agents = new AgentTracker(this);
  }

  area() {
    return { x: 0, y: 0, width: this.options.cols, height: this.options.rows };
  }

  // ---- lookups -------------------------------------------------------------------------------

  workspace(id) {
    const ws = this.workspaces.get(id);
    if (!ws) throw new ApiError('workspace_not_found', `workspace ${id} not found`);
    return ws;
  }

  tab(id) {
    for (const ws of this.workspaces.values()) {
      const tab = ws.tabs.get(id);
      if (tab) return tab;
    }
    throw new ApiError('tab_not_found', `tab ${id} not found`);
  }

  pane(id) {
    const pane = this.panes.get(id);
    if (!pane) throw new ApiError('pane_not_found', `pane ${id} not found`);
    return pane;
  }

  tabPanes(tab) {
    return [...paneIds(tab.root), ...tab.overlays].map((id) => this.panes.get(id)).filter(Boolean);
  }

  allPanes() {
    return [...this.panes.values()];
  }

  orderedTabs() {
    return [...this.workspaces.values()].flatMap((ws) => [...ws.tabs.values()]);
  }

  /** Panes in sidebar order: workspace, tab, then layout order. */
  orderedPanes() {
    return this.orderedTabs().flatMap((tab) => this.tabPanes(tab));
  }

  activeWorkspace() {
    return this.activeWorkspaceId === undefined ? undefined : this.workspaces.get(this.activeWorkspaceId);
  }

  /** The UI-focused pane: focused pane of the active tab of the active workspace. */
  focusedPane() {
    const ws = this.activeWorkspace();
    const tab = ws?.tabs.get(ws.activeTabId);
    return tab ? this.panes.get(tab.focusedPaneId) : undefined;
  }

  isPaneFocused(pane) {
    return this.focusedPane() === pane;
  }

  /** In the active tab of the active workspace (no client attached counts as focused). */
  isPaneActive(pane) {
    const ws = this.activeWorkspace();
    return ws !== undefined && pane.workspaceId === ws.id && pane.tabId === ws.activeTabId;
  }

  // ---- records -------------------------------------------------------------------------------

  workspaceInfo(ws) {
    return workspaceInfo(this, ws);
  }

  tabInfo(tab) {
    return tabInfo(this, tab);
  }

  paneInfo(pane) {
    return paneInfo(this, pane);
  }

  layout(tab) {
    return layoutSnapshot(this, tab);
  }

  // ---- creation ------------------------------------------------------------------------------

  checkEnv(env) {
    for (const [key, value] of Object.entries(env ?? {})) {
      if (!ENV_KEY.test(key) || value.includes('\0')) {
        throw new ApiError('invalid_env', `invalid environment variable ${JSON.stringify(key)}`);
      }
    }
  }

  /** Absolute, existing directory for a new pane (relative paths resolve in the server cwd). */
  resolveCwd(cwd, fallback, failCode) {
    const dir = cwd === undefined ? fallback : isAbsolute(cwd) ? cwd : resolve(process.cwd(), cwd);
    try {
      if (statSync(dir).isDirectory()) return dir;
    } catch {
      // reported below
    }
    throw new ApiError(failCode, `cwd ${dir} is not a directory`);
  }

  #paneEnv(ws, tabId, paneId, extra) {
    const env = { ...this.options.env, ...extra };
    delete env.CODEX_THREAD_ID;
    return Object.assign(env, {
      HERDR_ENV: '1',
      HERDR_SOCKET_PATH: this.options.socketPath,
      HERDR_BIN_PATH: this.options.binPath,
      HERDR_WORKSPACE_ID: ws.id,
      HERDR_TAB_ID: tabId,
      HERDR_PANE_ID: paneId,
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
    });
  }

  /** Allocates the pane id, starts its process and registers it; waits for the process pid. */
  async #spawnPane(ws, tabId, { cwd, env, command, label, plugin }) {
    ws.paneCounter += 1;
    const id = `${ws.id}:p${encodeNumber(ws.paneCounter)}`;
    const process_ = new PaneProcess({
      argv: command ?? [this.options.shell],
      cwd,
      env: this.#paneEnv(ws, tabId, id, env),
      rows: this.options.rows,
      cols: this.options.cols,
    });
    const terminal = {
      id: terminalId(),
      process: process_,
      launchCwd: cwd,
      tokens: new TokenStore(),
      revision: 0,
      title: undefined,
      displayAgent: undefined,
      stateLabels: undefined,
    };
    const pane = { id, workspaceId: ws.id, tabId, terminal, label, plugin };
    this.agents.attach(pane);
    this.panes.set(id, pane);
    this.processes.add(process_);
    process_.on('exit', () => {
      this.processes.delete(process_);
      this.#onProcessExit(pane);
    });
    process_.on('output', () => this.agents.onOutput(pane));
    await process_.started;
    return pane;
  }

  #newTab(ws, label) {
    ws.tabCounter += 1;
    const tab = {
      id: `${ws.id}:t${encodeNumber(ws.tabCounter)}`,
      workspaceId: ws.id,
      customLabel: label,
      root: null,
      overlays: [],
      focusedPaneId: undefined,
      zoomed: false,
    };
    ws.tabs.set(tab.id, tab);
    return tab;
  }

  async createWorkspace({ cwd, label, focus = false, env, worktree }) {
    this.checkEnv(env);
    const dir = this.resolveCwd(cwd, this.options.env.HOME ?? process.cwd(), 'workspace_create_failed');
    this.#workspaceCounter += 1;
    const ws = {
      id: `w${encodeNumber(this.#workspaceCounter)}`,
      customLabel: label,
      cwd: dir,
      tabs: new Map(),
      tabCounter: 0,
      paneCounter: 0,
      activeTabId: undefined,
      tokens: new TokenStore(),
      worktree,
    };
    this.workspaces.set(ws.id, ws);
    const tab = this.#newTab(ws, undefined);
    ws.activeTabId = tab.id;
    const pane = await this.#spawnPane(ws, tab.id, { cwd: dir, env });
    tab.root = leaf(pane.id);
    tab.focusedPaneId = pane.id;
    // Creation never steals focus, except that the first workspace becomes active when none is.
    if (focus || this.activeWorkspaceId === undefined) this.activeWorkspaceId = ws.id;
    this.events.emit('workspace_created', { workspace: this.workspaceInfo(ws) });
    this.events.emit('tab_created', { tab: this.tabInfo(tab) });
    this.events.emit('pane_created', { pane: this.paneInfo(pane) });
    return { ws, tab, pane };
  }

  async createTab(ws, { cwd, label, focus = false, env, command, paneLabel, plugin }) {
    this.checkEnv(env);
    const fallback = this.focusedPaneOf(ws) ? paneCwd(this.focusedPaneOf(ws)) : ws.cwd;
    const dir = this.resolveCwd(cwd, fallback, 'tab_create_failed');
    const tab = this.#newTab(ws, label);
    const pane = await this.#spawnPane(ws, tab.id, { cwd: dir, env, command, label: paneLabel, plugin });
    tab.root = leaf(pane.id);
    tab.focusedPaneId = pane.id;
    if (focus) this.focusTab(tab);
    this.events.emit('tab_created', { tab: this.tabInfo(tab) });
    this.events.emit('pane_created', { pane: this.paneInfo(pane) });
    return { tab, pane };
  }

  focusedPaneOf(ws) {
    const tab = ws.tabs.get(ws.activeTabId);
    return tab ? this.panes.get(tab.focusedPaneId) : undefined;
  }

  /** Splits `target`; the new pane is the second child (right of / below the target). */
  async splitPane(target, { direction, ratio = 0.5, cwd, focus = false, env, command, label, plugin, zoom }) {
    this.checkEnv(env);
    const dir = this.resolveCwd(cwd, paneCwd(target), 'pane_split_failed');
    const ws = this.workspace(target.workspaceId);
    const tab = ws.tabs.get(target.tabId);
    const pane = await this.#spawnPane(ws, tab.id, { cwd: dir, env, command, label, plugin });
    tab.root = splitLeaf(tab.root, target.id, pane.id, direction, ratio);
    if (zoom) tab.zoomed = true;
    if (focus) this.focusPane(pane);
    this.events.emit('pane_created', { pane: this.paneInfo(pane) });
    this.events.emit('layout_updated', { layout: this.layout(tab) });
    return pane;
  }

  /** An overlay plugin pane: lives in the tab but outside the split tree. */
  async overlayPane(target, { cwd, env, command, label, plugin, focus }) {
    const ws = this.workspace(target.workspaceId);
    const tab = ws.tabs.get(target.tabId);
    const pane = await this.#spawnPane(ws, tab.id, { cwd, env, command, label, plugin });
    tab.overlays.push(pane.id);
    if (focus) this.focusPane(pane);
    this.events.emit('pane_created', { pane: this.paneInfo(pane) });
    return pane;
  }

  // ---- focus ---------------------------------------------------------------------------------

  focusWorkspace(ws) {
    this.activeWorkspaceId = ws.id;
    const tab = ws.tabs.get(ws.activeTabId);
    if (tab) for (const pane of this.tabPanes(tab)) this.agents.markSeen(pane);
    this.events.emit('workspace_focused', { workspace_id: ws.id });
  }

  focusTab(tab) {
    const ws = this.workspace(tab.workspaceId);
    this.activeWorkspaceId = ws.id;
    ws.activeTabId = tab.id;
    for (const pane of this.tabPanes(tab)) this.agents.markSeen(pane);
    this.events.emit('tab_focused', { tab_id: tab.id, workspace_id: ws.id });
  }

  focusPane(pane) {
    const ws = this.workspace(pane.workspaceId);
    const tab = ws.tabs.get(pane.tabId);
    tab.focusedPaneId = pane.id;
    this.focusTab(tab);
    this.events.emit('pane_focused', { pane_id: pane.id, workspace_id: ws.id });
  }

  // ---- closing -------------------------------------------------------------------------------

  /** Herdr asks before a close that would implicitly close a repo's worktree group. */
  wouldCloseWorktreeGroup(ws) {
    if (!this.config.confirm_close || !ws.worktree || ws.worktree.is_linked_worktree) return false;
    const key = ws.worktree.repo_key;
    return [...this.workspaces.values()].filter((other) => other.worktree?.repo_key === key).length >= 2;
  }

  #forget(pane) {
    this.panes.delete(pane.id);
    this.agents.detach(pane);
    pane.closed = true;
    pane.terminal.process.kill();
  }

  #dropWorkspace(ws) {
    const info = this.workspaceInfo(ws);
    for (const tab of ws.tabs.values()) for (const pane of this.tabPanes(tab)) this.#forget(pane);
    const order = [...this.workspaces.keys()];
    const index = order.indexOf(ws.id);
    this.workspaces.delete(ws.id);
    if (this.activeWorkspaceId === ws.id) this.activeWorkspaceId = order[index + 1] ?? order[index - 1];
    this.events.emit('workspace_closed', { workspace_id: ws.id, workspace: info });
  }

  /** Removes one pane; `exited` = its process ended on its own (pane_exited instead of pane_closed). */
  removePane(pane, { exited = false } = {}) {
    const ws = this.workspace(pane.workspaceId);
    const tab = ws.tabs.get(pane.tabId);
    const wouldCloseWorkspace = this.tabPanes(tab).length <= 1 && ws.tabs.size <= 1;
    if (!exited && wouldCloseWorkspace && this.wouldCloseWorktreeGroup(ws)) {
      throw new ApiError('confirmation_required', 'closing this pane would close a worktree group');
    }
    if (wouldCloseWorkspace) {
      this.events.emit(exited ? 'pane_exited' : 'pane_closed', { pane_id: pane.id, workspace_id: ws.id });
      this.#dropWorkspace(ws);
      return;
    }
    this.#forget(pane);
    tab.overlays = tab.overlays.filter((id) => id !== pane.id);
    tab.root = tab.root && removeLeaf(tab.root, pane.id);
    this.events.emit(exited ? 'pane_exited' : 'pane_closed', { pane_id: pane.id, workspace_id: ws.id });
    if (this.tabPanes(tab).length === 0) {
      this.#removeTab(ws, tab);
      return;
    }
    if (tab.focusedPaneId === pane.id) tab.focusedPaneId = paneIds(tab.root)[0] ?? tab.overlays[0];
    if (tab.root) this.events.emit('layout_updated', { layout: this.layout(tab) });
  }

  #removeTab(ws, tab) {
    const order = [...ws.tabs.keys()];
    const index = order.indexOf(tab.id);
    ws.tabs.delete(tab.id);
    if (ws.activeTabId === tab.id) ws.activeTabId = order[index + 1] ?? order[index - 1];
  }

  closeTab(tab) {
    const ws = this.workspace(tab.workspaceId);
    if (ws.tabs.size <= 1 && this.wouldCloseWorktreeGroup(ws)) {
      throw new ApiError('confirmation_required', 'closing this tab would close a worktree group');
    }
    if (ws.tabs.size <= 1) {
      this.events.emit('tab_closed', { tab_id: tab.id, workspace_id: ws.id });
      this.#dropWorkspace(ws);
      return;
    }
    for (const pane of this.tabPanes(tab)) this.#forget(pane);
    this.#removeTab(ws, tab);
    this.events.emit('tab_closed', { tab_id: tab.id, workspace_id: ws.id });
  }

  closeWorkspace(ws) {
    this.#dropWorkspace(ws);
  }

  #onProcessExit(pane) {
    if (pane.closed || !this.panes.has(pane.id)) return;
    this.removePane(pane, { exited: true });
  }

  /** Kills every pane process; used on shutdown, so synchronous. */
  killAll() {
    const processes = [...this.processes];
    killSessions(new Set(processes.map((p) => p.pid).filter((pid) => pid !== undefined)));
    for (const process_ of processes) process_.killHost();
  }
}
