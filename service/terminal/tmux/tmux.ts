// The tmux backend of the terminal port: tmux's own commands through the one process runner, ids
// as every target (`$3` session = workspace, `@7` window = tab, `%12` pane = pane), `-F` formats
// for every read and one `list-panes -a` per read. Commands run as the pane's own program
// (`new-window … -- argv`), never typed; agents are in agents-tmux.ts, the record mapping in
// tmux-records.ts and tmux's parsing rules in tmux-argv.ts.

import type { ProcessInfo } from '../../core/cleanup/pane-processes.js';
import { plainLine, stripEscapes } from '../../core/text/clean.js';
import { forwardedPort } from '../herdr/herdr.js';
import { ROUTINE_TIMEOUT_MS } from '../herdr/herdr-channel.js';
import type {
  AgentReport,
  AgentStarted,
  Created,
  CreateTabOptions,
  CreateWorkspaceOptions,
  Env,
  LaunchedCommand,
  MetadataReport,
  MetadataResult,
  NotifyOptions,
  OpenWorktreeOptions,
  ReadOptions,
  RunCommandOptions,
  SplitPaneOptions,
  StartAgentOptions,
  SwapDirection,
  TabCreated,
  TerminalPort,
  WaitAgentOptions,
  WorktreeList,
  WorktreeOpened,
  WorktreeScope,
} from '../port.js';
import type {
  Agent,
  Layout,
  Listing,
  Machine,
  Notification,
  Pane,
  PaneRead,
  PaneSwap,
  Tab,
  Workspace,
} from '../port-records.js';
import { needsHerdr, TerminalError } from '../terminal-errors.js';
import { TmuxAgents } from './tmux-agents.js';
import { commandArgs, formatLiteral, PANE_ID, placeArgs, SEP, SESSION_ID, WINDOW_ID } from './tmux-argv.js';
import { TmuxClient } from './tmux-client.js';
import { tmuxCallerPane } from './tmux-env.js';
import { foregroundProcesses } from './tmux-proc.js';
import {
  buildListing,
  type HookReport,
  liveTokens,
  OPT,
  type PaneRow,
  paneRows,
  parseTokens,
  type StoredTokens,
  withStartDir,
} from './tmux-records.js';
import { TmuxWorktrees } from './tmux-worktrees.js';

/** Lines a read returns by default, like Herdr's `recent` source; Herdr's maximum is 1000. */
const DEFAULT_LINES = 80;
const MAX_LINES = 1000;

export interface TmuxTerminalOptions {
  why: string;
  /** The server's socket (from TMUX), or undefined for tmux's default server. */
  socket: string | undefined;
  env: NodeJS.ProcessEnv;
  routineMs?: number;
  /** What the harness hooks last reported per terminal; default: nothing reported. */
  reports?: () => Promise<ReadonlyMap<string, HookReport>>;
  now?: () => number;
}

/** Where the board docks: the full height of the window's left edge, running `argv`. */
export interface DockLeftOptions {
  targetPaneId: string;
  width: number;
  argv: string[];
  cwd?: string;
  env?: Env;
}

export class TmuxTerminal implements TerminalPort {
  readonly kind = 'tmux';
  readonly insideHerdr = false;
  readonly server = undefined;
  readonly machine = undefined;
  readonly why: string;
  readonly client: TmuxClient;
  private readonly env: NodeJS.ProcessEnv;
  private readonly reports: () => Promise<ReadonlyMap<string, HookReport>>;
  private readonly now: () => number;
  private readonly agents: TmuxAgents;
  private readonly worktrees: TmuxWorktrees;

  constructor(options: TmuxTerminalOptions) {
    this.why = options.why;
    this.env = options.env;
    this.client = new TmuxClient(options.socket, options.env, options.routineMs ?? ROUTINE_TIMEOUT_MS);
    this.reports = options.reports ?? (async () => new Map());
    this.now = options.now ?? Date.now;
    this.agents = new TmuxAgents(this);
    this.worktrees = new TmuxWorktrees(this);
  }

  /** The environment git runs with for the worktree verbs: the caller's. */
  get gitEnv(): NodeJS.ProcessEnv {
    return this.env;
  }

  // --- reads: one list-panes -a each ---

  async listAll(options: { signal?: AbortSignal } = {}): Promise<Listing> {
    const [rows, reports] = await Promise.all([this.rows(options.signal), this.reports()]);
    return buildListing(rows, { now: this.now(), reports });
  }

  /** Every pane row of the server; none when no server runs. */
  async rows(signal?: AbortSignal): Promise<PaneRow[]> {
    return this.client.rows(['list-panes', '-a'], paneRows(), 'session.snapshot', signal ? { signal } : {});
  }

  async listWorkspaces(): Promise<Workspace[]> {
    return (await this.listAll()).workspaces;
  }

  async getWorkspace(workspaceId: string): Promise<Workspace> {
    const found = (await this.listAll()).workspaces.find((w) => w.workspace_id === workspaceId);
    if (!found) throw notFound('workspace_not_found', `workspace ${workspaceId} not found`, 'workspace.get');
    return found;
  }

  async listTabs(workspaceId?: string): Promise<Tab[]> {
    const listing = await this.listAll();
    const ws = workspaceId ?? (await this.activeWorkspace(listing));
    return listing.tabs.filter((tab) => tab.workspace_id === ws).sort((a, b) => a.number - b.number);
  }

  async listPanes(workspaceId?: string): Promise<Pane[]> {
    const panes = (await this.listAll()).panes;
    return workspaceId === undefined ? panes : panes.filter((pane) => pane.workspace_id === workspaceId);
  }

  async getPane(paneId: string): Promise<Pane> {
    const found = (await this.listAll()).panes.find((pane) => pane.pane_id === paneId);
    if (!found) throw notFound('pane_not_found', `pane ${paneId} not found`, 'pane.get');
    return found;
  }

  /** The caller's pane, else this process's own (TMUX_PANE), else the focused one. */
  async currentPane(callerPaneId?: string): Promise<Pane> {
    const listing = await this.listAll();
    const wanted = callerPaneId ?? tmuxCallerPane(this.env) ?? listing.focused_pane_id;
    const pane = listing.panes.find((p) => p.pane_id === wanted);
    if (pane) return pane;
    if (wanted === undefined)
      throw new TerminalError('no_active_pane', 'tmux: no pane is focused', { method: 'pane.current' });
    throw notFound('pane_not_found', `pane ${wanted} not found`, 'pane.current');
  }

  /** The row of one pane, or pane_not_found. */
  async paneRow(paneId: string, method: string): Promise<PaneRow> {
    if (!PANE_ID.test(paneId)) throw notFound('pane_not_found', `pane ${paneId} not found`, method);
    const row = (await this.rows()).find((r) => r.pane_id === paneId);
    if (!row) throw notFound('pane_not_found', `pane ${paneId} not found`, method);
    return row;
  }

  /** The caller's session, else the focused one, else the first; none is no_active_workspace. */
  private async activeWorkspace(listing?: Listing): Promise<string> {
    const s = listing ?? (await this.listAll());
    const caller = tmuxCallerPane(this.env);
    const own = s.panes.find((p) => p.pane_id === caller)?.workspace_id;
    const ws = own ?? s.focused_workspace_id ?? s.workspaces[0]?.workspace_id;
    if (ws === undefined)
      throw new TerminalError('no_active_workspace', `tmux: no session at ${this.client.target}`, {
        method: 'tab.create',
      });
    return ws;
  }

  // --- layout ---

  async createWorkspace(options: CreateWorkspaceOptions = {}): Promise<Created> {
    const row = await this.newSession(options, [], 'workspace.create');
    return this.created(row);
  }

  /** `new-session -d`; also starts the server when none runs. The label becomes the session name. */
  private async newSession(
    options: { cwd?: string; label?: string; env?: Env },
    argv: readonly string[],
    method: string,
  ): Promise<PaneRow> {
    const format = paneRows();
    const args = ['new-session', '-d', '-P', '-F', format.format, ...placeArgs(options.cwd, options.env)];
    const out = await this.client.run([...args, ...commandArgs(argv)], method);
    const row = withStartDir(one(format.parse(out), method), options.cwd);
    if (options.label) await this.rename('rename-session', row.session_id, options.label);
    return options.label ? { ...row, session_name: await this.sessionName(row.session_id) } : row;
  }

  /** Session names are unique in tmux: a taken label gets the session id appended. */
  private async rename(verb: 'rename-session' | 'rename-window', id: string, label: string): Promise<void> {
    const name = formatLiteral(label);
    try {
      await this.client.run([verb, '-t', id, '--', name], verb);
    } catch (error) {
      if (!(error instanceof TerminalError) || !/duplicate/.test(error.message)) throw error;
      await this.client.run([verb, '-t', id, '--', `${name} ${id}`], verb);
    }
  }

  private async sessionName(sessionId: string): Promise<string> {
    return (await this.rows()).find((r) => r.session_id === sessionId)?.session_name ?? '';
  }

  /** The records of one pane row: its session, window and the pane. */
  created(row: PaneRow): Created {
    const listing = buildListing([row], { now: this.now(), reports: new Map() });
    return {
      workspace: listing.workspaces[0] as Workspace,
      tab: listing.tabs[0] as Tab,
      root_pane: listing.panes[0] as Pane,
    };
  }

  async closeWorkspace(workspaceId: string): Promise<void> {
    const id = checked(workspaceId, SESSION_ID, 'workspace_not_found', 'workspace.close');
    await this.client.run(['kill-session', '-t', id], 'workspace.close');
  }

  async createTab(options: CreateTabOptions = {}): Promise<TabCreated> {
    const row = await this.newWindow(options, [], 'tab.create');
    const { tab, root_pane } = this.created(row);
    return { tab, root_pane };
  }

  private async newWindow(
    options: { workspaceId?: string; cwd?: string; label?: string; env?: Env },
    argv: readonly string[],
    method: string,
  ): Promise<PaneRow> {
    const ws = options.workspaceId ?? (await this.activeWorkspace());
    checked(ws, SESSION_ID, 'workspace_not_found', method);
    const format = paneRows();
    const args = ['new-window', '-d', '-P', '-F', format.format, '-t', `${ws}:`];
    if (options.label) args.push('-n', formatLiteral(options.label));
    args.push(...placeArgs(options.cwd, options.env), ...commandArgs(argv));
    return withStartDir(one(format.parse(await this.client.run(args, method)), method), options.cwd);
  }

  async closeTab(tabId: string): Promise<void> {
    const id = checked(tabId, WINDOW_ID, 'tab_not_found', 'tab.close');
    await this.client.run(['kill-window', '-t', id], 'tab.close');
  }

  async splitPane(options: SplitPaneOptions): Promise<Pane> {
    const target = options.targetPaneId ?? (await this.currentPane()).pane_id;
    checked(target, PANE_ID, 'pane_not_found', 'pane.split');
    const format = paneRows();
    const args = ['split-window', '-d', '-P', '-F', format.format, '-t', target];
    args.push(options.direction === 'right' ? '-h' : '-v');
    if (options.ratio !== undefined) {
      const kept = Math.min(0.9, Math.max(0.1, options.ratio));
      args.push('-l', `${Math.round((1 - kept) * 100)}%`);
    }
    args.push(...placeArgs(options.cwd, options.env));
    const row = one(format.parse(await this.client.run(args, 'pane.split')), 'pane.split');
    return this.created(withStartDir(row, options.cwd)).root_pane;
  }

  /** tmux only: a pane docked full height at the window's left edge, `width` cells wide. */
  async dockLeft(options: DockLeftOptions): Promise<Pane> {
    checked(options.targetPaneId, PANE_ID, 'pane_not_found', 'pane.dock');
    const format = paneRows();
    const args = ['split-window', '-hbf', '-d', '-l', String(options.width), '-P', '-F', format.format];
    args.push(
      '-t',
      options.targetPaneId,
      ...placeArgs(options.cwd, options.env),
      ...commandArgs(options.argv),
    );
    const row = one(format.parse(await this.client.run(args, 'pane.dock')), 'pane.dock');
    return this.created(withStartDir(row, options.cwd)).root_pane;
  }

  async closePane(paneId: string): Promise<void> {
    checked(paneId, PANE_ID, 'pane_not_found', 'pane.close');
    await this.client.run(['kill-pane', '-t', paneId], 'pane.close');
  }

  /**
   * The pane made current in its window and session, and every client that shows the caller's
   * session (the board's, the one a person looks at) switched to it: a child lives in a session of
   * its own, and selecting a window of a session nobody looks at changes nothing on the screen.
   */
  async focusPane(paneId: string): Promise<void> {
    const row = await this.paneRow(paneId, 'pane.focus');
    await this.client.run(
      ['select-window', '-t', row.window_id, SEP, 'select-pane', '-t', paneId],
      'pane.focus',
    );
    const caller = tmuxCallerPane(this.env);
    if (caller === null) return;
    const clients = await this.client
      .run(['list-clients', '-t', caller, '-F', '#{client_name}'], 'pane.focus')
      .catch(() => '');
    for (const client of clients.split('\n').filter((name) => name.trim() !== '')) {
      await this.client.run(['switch-client', '-c', client, '-t', paneId], 'pane.focus');
    }
  }

  async paneLayout(paneId: string): Promise<Layout> {
    const row = await this.paneRow(paneId, 'pane.layout');
    const rows = (await this.rows()).filter((r) => r.window_id === row.window_id);
    const active = rows.find((r) => r.pane_active === '1');
    return {
      workspace_id: row.session_id,
      tab_id: row.window_id,
      area: { x: 0, y: 0, width: Number(row.window_width), height: Number(row.window_height) },
      ...(active ? { focused_pane_id: active.pane_id } : {}),
      panes: rows.map((r) => ({ pane_id: r.pane_id, focused: r.pane_active === '1', rect: rectOf(r) })),
      // tmux keeps its own layout tree, not Herdr's split paths: none are named.
      splits: [],
    };
  }

  async swapPane(paneId: string, direction: SwapDirection): Promise<PaneSwap> {
    const before = await this.paneLayout(paneId);
    const source = before.panes.find((p) => p.pane_id === paneId);
    const neighbour = source && before.panes.find((p) => adjacent(source.rect, p.rect, direction));
    if (!neighbour) {
      return {
        changed: false,
        reason: `no pane ${direction} of ${paneId}`,
        source_pane_id: paneId,
        layout: before,
      };
    }
    await this.client.run(['swap-pane', '-d', '-s', paneId, '-t', neighbour.pane_id], 'pane.swap');
    return {
      changed: true,
      source_pane_id: paneId,
      target_pane_id: neighbour.pane_id,
      layout: await this.paneLayout(paneId),
    };
  }

  setSplitRatio(): Promise<void> {
    return Promise.reject(
      new TerminalError(
        'other',
        'tmux has no split paths: set a pane size with its own verbs (resize-pane)',
        {
          method: 'layout.set_split_ratio',
          herdrCode: 'tmux',
        },
      ),
    );
  }

  async readPane(paneId: string, options: ReadOptions = {}): Promise<PaneRead> {
    checked(paneId, PANE_ID, 'pane_not_found', 'pane.read');
    const source = options.source ?? 'recent';
    const lines = Math.min(Math.max(1, options.lines ?? DEFAULT_LINES), MAX_LINES);
    const args = ['capture-pane', '-p', '-t', paneId];
    if (options.format === 'ansi') args.push('-e');
    if (source === 'recent_unwrapped') args.push('-J');
    if (source !== 'visible') args.push('-S', `-${lines}`);
    const out = await this.client.run(args, 'pane.read');
    const all = out.replace(/\n+$/, '').split('\n');
    const kept = all.slice(-lines);
    const text = kept.join('\n');
    return {
      pane_id: paneId,
      source,
      text: options.format === 'ansi' ? text : stripEscapes(text),
      truncated: all.length > lines,
    };
  }

  async processInfo(paneId: string): Promise<ProcessInfo> {
    const row = await this.paneRow(paneId, 'pane.process_info');
    const shell = Number(row.pane_pid);
    if (row.pane_dead === '1') return { pane_id: paneId, shell_pid: shell, foreground_processes: [] };
    const { pgid, processes } = await foregroundProcesses(shell);
    return {
      pane_id: paneId,
      shell_pid: shell,
      ...(pgid === undefined ? {} : { foreground_process_group_id: pgid }),
      foreground_processes: processes,
    };
  }

  async sendInput(paneId: string, input: { text?: string; keys?: string[] }): Promise<void> {
    checked(paneId, PANE_ID, 'pane_not_found', 'pane.send_input');
    const args: string[] = [];
    if (input.text !== undefined && input.text !== '')
      args.push('send-keys', '-t', paneId, '-l', '--', input.text);
    if (input.keys && input.keys.length > 0) {
      if (args.length > 0) args.push(SEP);
      args.push('send-keys', '-t', paneId, '--', ...input.keys);
    }
    if (args.length > 0) await this.client.run(args, 'pane.send_input');
  }

  runLine(paneId: string, line: string): Promise<void> {
    return this.sendInput(paneId, { text: line, keys: ['Enter'] });
  }

  // --- agents (agents-tmux.ts) ---

  listAgents = (): Promise<Agent[]> => this.agents.list();
  getAgent = (target: string): Promise<Agent> => this.agents.get(target);
  startAgent = (options: StartAgentOptions): Promise<AgentStarted> => this.agents.start(options);
  waitAgent = (target: string, options?: WaitAgentOptions): Promise<Agent> =>
    this.agents.wait(target, options);
  readAgent = async (target: string, options?: ReadOptions): Promise<PaneRead> =>
    this.readPane((await this.agents.get(target)).pane_id, options);

  // --- worktrees (tmux-worktrees.ts) ---

  listWorktrees = (scope?: WorktreeScope): Promise<WorktreeList> => this.worktrees.list(scope);
  openWorktree = (options: OpenWorktreeOptions): Promise<WorktreeOpened> => this.worktrees.open(options);

  // --- what only Herdr has ---
  openPluginPane = () =>
    Promise.reject(
      needsHerdr(
        'plugin pane open',
        'tmux has no plugins; the board docks with dockLeft',
        'plugin.pane.open',
      ),
    );

  /** A board pane in tmux is an ordinary pane. */
  closePluginPane(paneId: string): Promise<void> {
    return this.closePane(paneId);
  }

  listPlugins = () => Promise.reject(needsHerdr('plugin list', 'tmux has no plugins', 'plugin.list'));

  machines(): Promise<Machine[] | null> {
    return Promise.resolve(null);
  }

  forMachine(machine: string): TerminalPort {
    return forwardedPort(machine, undefined, this.env, ROUTINE_TIMEOUT_MS);
  }

  // --- metadata and notifications ---

  async reportPaneMetadata(paneId: string, report: MetadataReport): Promise<MetadataResult> {
    const row = await this.paneRow(paneId, 'pane.report_metadata');
    const next = patchTokens(parseTokens(row[OPT.paneTokens]), report, this.now());
    await this.client.run(['set-option', '-p', '-t', paneId, OPT.paneTokens, next], 'pane.report_metadata');
    return { applied: true };
  }

  async reportWorkspaceMetadata(workspaceId: string, report: MetadataReport): Promise<MetadataResult> {
    const method = 'workspace.report_metadata';
    const id = checked(workspaceId, SESSION_ID, 'workspace_not_found', method);
    const row = (await this.rows()).find((r) => r.session_id === id);
    if (!row) throw notFound('workspace_not_found', `workspace ${id} not found`, method);
    const next = patchTokens(parseTokens(row[OPT.sessionTokens]), report, this.now());
    await this.client.run(['set-option', '-t', id, OPT.sessionTokens, next], method);
    return { applied: true };
  }

  async reportAgent(paneId: string, report: AgentReport): Promise<MetadataResult> {
    checked(paneId, PANE_ID, 'pane_not_found', 'pane.report_agent');
    const value = JSON.stringify({ source: report.source, agent: report.agent, state: report.state });
    await this.client.run(['set-option', '-p', '-t', paneId, OPT.report, value], 'pane.report_agent');
    return { applied: true };
  }

  /** On every attached client's status line; none attached is `shown: false`, never an error. */
  async notify(options: NotifyOptions): Promise<Notification> {
    const clients = (
      await this.client.run(['list-clients', '-F', '#{client_name}'], 'notification.show').catch(() => '')
    )
      .split('\n')
      .filter((name) => name !== '');
    if (clients.length === 0) return { shown: false, reason: 'no_client' };
    const text = plainLine([options.title, options.body].filter(Boolean).join(': '));
    const args = clients.flatMap((client, i) => [
      ...(i > 0 ? [SEP] : []),
      'display-message',
      '-c',
      client,
      '--',
      formatLiteral(text),
    ]);
    await this.client.run(args, 'notification.show');
    return { shown: true, reason: 'shown' };
  }

  // --- jobs ---

  /** argv is the new window's own program: nothing is typed, so any argument survives as given. */
  async runCommand(options: RunCommandOptions): Promise<LaunchedCommand> {
    if (options.argv.length === 0) throw new Error('runCommand: argv is empty');
    const row = options.newWorkspace
      ? await this.newSession(options, options.argv, 'tab.create')
      : await this.newWindow(options, options.argv, 'tab.create');
    return {
      paneId: row.pane_id,
      workspaceId: row.session_id,
      tabId: row.window_id,
      terminalId: this.created(row).root_pane.terminal_id,
      pid: Number(row.pane_pid),
    };
  }
}

function one(rows: PaneRow[], method: string): PaneRow {
  const row = rows[0];
  if (!row) throw new TerminalError('protocol', `tmux ${method}: no pane in the reply`, { method });
  return row;
}

function checked(
  id: string,
  pattern: RegExp,
  code: 'pane_not_found' | 'tab_not_found' | 'workspace_not_found',
  method: string,
): string {
  if (!pattern.test(id)) throw notFound(code, `${code.split('_')[0]} ${id} not found`, method);
  return id;
}

function notFound(
  code: 'pane_not_found' | 'tab_not_found' | 'workspace_not_found',
  message: string,
  method: string,
) {
  return new TerminalError(code, `tmux: ${message}`, { method });
}

function rectOf(row: PaneRow) {
  return {
    x: Number(row.pane_left),
    y: Number(row.pane_top),
    width: Number(row.pane_width),
    height: Number(row.pane_height),
  };
}

type Rect = ReturnType<typeof rectOf>;

/** `b` touches `a` on that side (one border cell between them) and overlaps it along the edge. */
function adjacent(a: Rect, b: Rect, side: SwapDirection): boolean {
  const overlapY = b.y < a.y + a.height && a.y < b.y + b.height;
  const overlapX = b.x < a.x + a.width && a.x < b.x + b.width;
  if (side === 'left') return overlapY && b.x + b.width + 1 === a.x;
  if (side === 'right') return overlapY && a.x + a.width + 1 === b.x;
  if (side === 'up') return overlapX && b.y + b.height + 1 === a.y;
  return overlapX && a.y + a.height + 1 === b.y;
}

/** Applies a patch (null clears) with its expiry; expired entries are dropped on the way. */
export function patchTokens(stored: StoredTokens, report: MetadataReport, now: number): string {
  const live = liveTokens(stored, now) ?? {};
  const next: StoredTokens = {};
  for (const [key, entry] of Object.entries(stored)) if (key in live) next[key] = entry;
  for (const [key, value] of Object.entries(report.tokens)) {
    if (value === null) delete next[key];
    else next[key] = { v: value, exp: report.ttlMs === undefined ? null : now + report.ttlMs };
  }
  return JSON.stringify(next);
}
