// The one interface the product uses for the terminal multiplexer. Two backends implement it: Herdr
// (socket first, CLI fallback; see herdr.ts) and headless (detached process groups; see headless.ts).
// Ids are opaque strings read from replies: never parse or predict them. Failures are TerminalError
// (errors.ts); nothing here returns an error value.

import type { ProcessInfo } from '../core/cleanup/pane-processes.js';
import type {
  Agent,
  AgentStatus,
  Layout,
  Listing,
  Machine,
  Notification,
  Pane,
  PaneRead,
  PaneSwap,
  Plugin,
  ServerInfo,
  Tab,
  Workspace,
  Worktree,
  WorktreeSource,
} from './port-records.js';

export type TerminalKind = 'herdr-socket' | 'herdr-cli' | 'tmux' | 'headless';
export type Env = Record<string, string>;
export type SplitDirection = 'right' | 'down';
export type SwapDirection = 'left' | 'right' | 'up' | 'down';
export type ReadSource = 'visible' | 'recent' | 'recent_unwrapped' | 'detection';

export interface CreateWorkspaceOptions {
  cwd?: string;
  label?: string;
  focus?: boolean;
  env?: Env;
}

export interface CreateTabOptions {
  /** Omitted: the active workspace. */
  workspaceId?: string;
  cwd?: string;
  label?: string;
  focus?: boolean;
  env?: Env;
}

export interface SplitPaneOptions {
  /** Omitted: the focused pane of `workspaceId`, or of the active workspace. */
  targetPaneId?: string;
  workspaceId?: string;
  direction: SplitDirection;
  /** Share kept by the original pane; Herdr clamps it to 0.1-0.9. */
  ratio?: number;
  cwd?: string;
  focus?: boolean;
  env?: Env;
}

export interface ReadOptions {
  source?: ReadSource;
  lines?: number;
  format?: 'text' | 'ansi';
}

export interface StartAgentOptions {
  name: string;
  kind: string;
  /** The exact canonical id of an available shell pane. */
  paneId: string;
  args?: string[];
  /** Herdr's start deadline, 3000 < ms <= 300000 (Herdr's default 30000). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface WaitAgentOptions {
  /** Omitted: idle, done or blocked. */
  until?: AgentStatus[];
  /** Omitted: wait until the status matches, the signal aborts, or the agent goes away. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** At most one of the two; neither means the active workspace. */
export interface WorktreeScope {
  workspaceId?: string;
  cwd?: string;
}

/** Exactly one of `path` (absolute) and `branch`. */
export interface OpenWorktreeOptions extends WorktreeScope {
  path?: string;
  branch?: string;
  label?: string;
  focus?: boolean;
}

/** A metadata report: `tokens` is a patch (a string sets the key, null clears it). */
export interface MetadataReport {
  source: string;
  tokens: Record<string, string | null>;
  seq?: number;
  ttlMs?: number;
}

export interface NotifyOptions {
  title: string;
  body?: string;
  position?: 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right';
  sound?: 'none' | 'done' | 'request';
}

export interface OpenPluginPaneOptions {
  pluginId: string;
  entrypoint: string;
  placement?: 'overlay' | 'popup' | 'split' | 'tab' | 'zoomed';
  workspaceId?: string;
  targetPaneId?: string;
  direction?: SplitDirection;
  cwd?: string;
  focus?: boolean;
  env?: Env;
}

export interface Created {
  workspace: Workspace;
  tab: Tab;
  root_pane: Pane;
}

export interface TabCreated {
  tab: Tab;
  root_pane: Pane;
}

export interface WorktreeList {
  source: WorktreeSource;
  worktrees: Worktree[];
}

export interface WorktreeOpened extends Created {
  worktree: Worktree | Record<string, unknown>;
  already_open: boolean;
}

export interface AgentStarted {
  /** The agent once Herdr marked it interactive-ready. */
  agent: Agent;
  /** The argv Herdr typed, when the backend reports it. */
  argv?: string[];
}

export interface RunCommandOptions {
  /** A new tab in this workspace; omitted (and no `newWorkspace`): a new tab in the active one. */
  workspaceId?: string;
  /** A new workspace at `cwd` instead of a tab. */
  newWorkspace?: boolean;
  cwd: string;
  argv: string[];
  env?: Env;
  /** Tab or workspace label in Herdr. */
  label?: string;
  /** Headless only: stdout and stderr are appended here (else discarded). Herdr shows them in the pane. */
  logPath?: string;
}

export interface LaunchedCommand {
  /** The pane the command runs in (headless: an opaque id naming the process group). */
  paneId: string;
  workspaceId?: string;
  tabId?: string;
  terminalId?: string;
  /** Headless only: the leader's pid, which is also its process group id. */
  pid?: number;
}

/**
 * A lifecycle report of a custom integration (`pane.report_agent`, CONTRACT §6.2): Herdr shows the
 * pane as `agent` in `state` until the pane's foreground job ends or the report is released.
 */
export interface AgentReport {
  source: string;
  agent: string;
  state: 'idle' | 'working' | 'blocked' | 'unknown';
  message?: string;
  seq?: number;
}

/** Whether a metadata report reached Herdr; headless reports go nowhere. */
export interface MetadataResult {
  applied: boolean;
}

export interface TerminalPort {
  /** Which backend this is, and why it was chosen (e.g. `socket /run/h.sock answered`). */
  readonly kind: TerminalKind;
  readonly why: string;
  /** HERDR_ENV=1 and HERDR_SOCKET_PATH answered: this process runs in a Herdr pane. */
  readonly insideHerdr: boolean;
  /** The server's `ping` answer (socket backend), else undefined. */
  readonly server: ServerInfo | undefined;
  /** The saved machine every call is forwarded to (`--machine`), else undefined. */
  readonly machine: string | undefined;

  listWorkspaces(): Promise<Workspace[]>;
  getWorkspace(workspaceId: string): Promise<Workspace>;
  createWorkspace(options?: CreateWorkspaceOptions): Promise<Created>;
  closeWorkspace(workspaceId: string): Promise<void>;

  listTabs(workspaceId?: string): Promise<Tab[]>;
  createTab(options?: CreateTabOptions): Promise<TabCreated>;
  closeTab(tabId: string): Promise<void>;

  listPanes(workspaceId?: string): Promise<Pane[]>;
  getPane(paneId: string): Promise<Pane>;
  /** The caller's pane (`callerPaneId`), else the UI-focused pane. */
  currentPane(callerPaneId?: string): Promise<Pane>;
  splitPane(options: SplitPaneOptions): Promise<Pane>;
  closePane(paneId: string): Promise<void>;
  /** Focuses a pane (its tab and workspace too) and marks it seen (`pane.focus`). */
  focusPane(paneId: string): Promise<void>;
  /** The layout of the pane's tab: panes and splits with their cell rects (`pane.layout`). */
  paneLayout(paneId: string): Promise<Layout>;
  /** Swaps a pane with its neighbour on one side (`pane.swap`); `changed: false` says why not. */
  swapPane(paneId: string, direction: SwapDirection): Promise<PaneSwap>;
  /**
   * Sets the share kept by the first child of the split at `path` in the pane's tab (false = first
   * child, true = second; [] = the root). Herdr clamps the ratio to 0.1-0.9.
   */
  setSplitRatio(paneId: string, path: readonly boolean[], ratio: number): Promise<void>;
  readPane(paneId: string, options?: ReadOptions): Promise<PaneRead>;
  processInfo(paneId: string): Promise<ProcessInfo>;
  sendInput(paneId: string, input: { text?: string; keys?: string[] }): Promise<void>;
  /** Types `line` and presses Enter (`herdr pane run`). */
  runLine(paneId: string, line: string): Promise<void>;

  listAgents(): Promise<Agent[]>;
  getAgent(target: string): Promise<Agent>;
  /** Starts an agent and returns once Herdr reports it interactive-ready (CONTRACT §4.4). */
  startAgent(options: StartAgentOptions): Promise<AgentStarted>;
  waitAgent(target: string, options?: WaitAgentOptions): Promise<Agent>;
  readAgent(target: string, options?: ReadOptions): Promise<PaneRead>;

  listWorktrees(scope?: WorktreeScope): Promise<WorktreeList>;
  openWorktree(options: OpenWorktreeOptions): Promise<WorktreeOpened>;

  reportPaneMetadata(paneId: string, report: MetadataReport): Promise<MetadataResult>;
  reportWorkspaceMetadata(workspaceId: string, report: MetadataReport): Promise<MetadataResult>;
  /** Only for panes dogsled runs itself (job panes): Herdr or the official hooks own agents' states. */
  reportAgent(paneId: string, report: AgentReport): Promise<MetadataResult>;
  /** Herdr's default delivery is off: `shown: false` is normal and never an error. */
  notify(options: NotifyOptions): Promise<Notification>;

  /** The new plugin pane, or undefined for a popup (Herdr gives popups no pane). */
  openPluginPane(options: OpenPluginPaneOptions): Promise<Pane | undefined>;
  closePluginPane(paneId: string): Promise<void>;
  /** The plugins Herdr has installed or linked (only `pluginId` when given); Herdr only. */
  listPlugins(pluginId?: string): Promise<Plugin[]>;

  /**
   * Runs argv in a new tab (or workspace) on Herdr by typing its POSIX-quoted line plus Enter, or as
   * a detached process group on headless.
   */
  runCommand(options: RunCommandOptions): Promise<LaunchedCommand>;

  /** Workspaces, tabs, panes and agents in ONE request (`session.snapshot`); the signal abandons it. */
  listAll(options?: { signal?: AbortSignal }): Promise<Listing>;
  /** Herdr 0.9 saved machines, or null when this Herdr has no machine verbs. */
  machines(): Promise<Machine[] | null>;
  /** A port whose every call is forwarded to a saved machine (`herdr --machine <id>`). */
  forMachine(machine: string): TerminalPort;
}
