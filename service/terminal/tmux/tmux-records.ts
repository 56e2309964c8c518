// The tmux session as the port's records, read in ONE `list-panes -a` call: sessions are
// workspaces, windows are tabs, panes are panes, and panes that dogsled started as agents (pane
// option @dogsled-agent) are agents. Their state is what the harness hooks last reported for that
// terminal (state dir), since tmux has no agent detection; metadata tokens live in pane and
// session options as JSON with their expiry.

import type { Agent, AgentStatus, Listing, Pane, Tab, Workspace, WorktreeRef } from '../port-records.js';
import { rowFormat } from './tmux-argv.js';
import { tmuxTerminalId } from './tmux-env.js';

/** Pane options dogsled keeps on tmux panes and sessions. */
export const OPT = {
  agent: '@dogsled-agent',
  name: '@dogsled-name',
  report: '@dogsled-report',
  paneTokens: '@dogsled-pane-tokens',
  sessionTokens: '@dogsled-ws-tokens',
  /** On a session opened for a worktree: the checkout it shows (JSON, Herdr's worktree ref). */
  worktree: '@dogsled-worktree',
} as const;

export const PANE_FIELDS = [
  'pid',
  'session_id',
  'session_name',
  'session_attached',
  'window_id',
  'window_index',
  'window_name',
  'window_active',
  'window_width',
  'window_height',
  'pane_id',
  'pane_active',
  'pane_dead',
  'pane_pid',
  'pane_current_command',
  'pane_current_path',
  'pane_title',
  'pane_left',
  'pane_top',
  'pane_width',
  'pane_height',
  OPT.agent,
  OPT.name,
  OPT.report,
  OPT.paneTokens,
  OPT.sessionTokens,
  OPT.worktree,
] as const;

export type PaneRow = Record<(typeof PANE_FIELDS)[number], string>;

/**
 * A pane tmux has just made can report no current path yet (its process has not started when the
 * -P format is expanded, which happens under load); it starts in the directory it was given.
 */
export function withStartDir(row: PaneRow, cwd: string | undefined): PaneRow {
  return row.pane_current_path === '' && cwd !== undefined ? { ...row, pane_current_path: cwd } : row;
}

export const paneRows = () => rowFormat(PANE_FIELDS);

/** What a harness hook last said about one terminal (state dir), as the port needs it. */
export interface HookReport {
  state: AgentStatus;
  at_ms: number;
  /** The harness's session: a transcript path or a session id. */
  session?: { kind: 'path' | 'id'; value: string };
}

/** A lifecycle report of a pane dogsled runs itself (`reportAgent`), kept in @dogsled-report. */
interface PaneReport {
  source: string;
  agent: string;
  state: AgentStatus;
}

/** Token patches with their expiry; an expired token reads as absent. */
export type StoredTokens = Record<string, { v: string; exp: number | null }>;

export function parseTokens(text: string): StoredTokens {
  if (text === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    const tokens: StoredTokens = {};
    for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
      const e = entry as { v?: unknown; exp?: unknown };
      if (typeof e?.v !== 'string') continue;
      tokens[key] = { v: e.v, exp: typeof e.exp === 'number' ? e.exp : null };
    }
    return tokens;
  } catch {
    return {};
  }
}

export function liveTokens(stored: StoredTokens, now: number): Record<string, string> | undefined {
  const live = Object.entries(stored).filter(([, entry]) => entry.exp === null || entry.exp > now);
  return live.length === 0 ? undefined : Object.fromEntries(live.map(([key, entry]) => [key, entry.v]));
}

/** The checkout a session was opened to show (@dogsled-worktree), or undefined. */
export function worktreeOf(row: PaneRow): WorktreeRef | undefined {
  const text = row[OPT.worktree];
  if (text === '') return undefined;
  try {
    const value = JSON.parse(text) as Partial<WorktreeRef>;
    const strings = [value.repo_key, value.repo_name, value.repo_root, value.checkout_path];
    if (
      strings.some((v) => typeof v !== 'string' || v === '') ||
      typeof value.is_linked_worktree !== 'boolean'
    )
      return undefined;
    return value as WorktreeRef;
  } catch {
    return undefined;
  }
}

function parseReport(text: string): PaneReport | undefined {
  if (text === '') return undefined;
  try {
    const value = JSON.parse(text) as Partial<PaneReport>;
    if (typeof value.agent !== 'string' || typeof value.source !== 'string') return undefined;
    return { source: value.source, agent: value.agent, state: status(value.state) };
  } catch {
    return undefined;
  }
}

function status(value: unknown): AgentStatus {
  return value === 'idle' || value === 'working' || value === 'blocked' || value === 'done'
    ? value
    : 'unknown';
}

const URGENCY: AgentStatus[] = ['blocked', 'working', 'idle', 'done', 'unknown'];

function rollUp(states: AgentStatus[]): AgentStatus {
  for (const state of URGENCY) if (states.includes(state)) return state;
  return 'unknown';
}

export interface BuildContext {
  now: number;
  reports: ReadonlyMap<string, HookReport>;
}

/** Every record of the session from the rows of one `list-panes -a`. */
export function buildListing(rows: readonly PaneRow[], context: BuildContext): Listing {
  const panes: Pane[] = [];
  const agents: Agent[] = [];
  const tabs = new Map<string, Tab>();
  const workspaces = new Map<string, Workspace>();
  let focused: Pane | undefined;
  for (const row of rows) {
    const terminal = tmuxTerminalId(row.pane_id, row.pid);
    const attached = Number(row.session_attached) > 0;
    const paneFocused = attached && row.window_active === '1' && row.pane_active === '1';
    const agent = agentOf(row, terminal, context);
    const pane: Pane = {
      pane_id: row.pane_id,
      terminal_id: terminal,
      workspace_id: row.session_id,
      tab_id: row.window_id,
      focused: paneFocused,
      agent_status: agent?.agent_status ?? 'unknown',
      ...(row.pane_current_path ? { cwd: row.pane_current_path, foreground_cwd: row.pane_current_path } : {}),
      ...(row.pane_title ? { title: row.pane_title, terminal_title: row.pane_title } : {}),
      ...(agent?.agent ? { agent: agent.agent, display_agent: agent.agent } : {}),
      ...(agent?.agent_session ? { agent_session: agent.agent_session } : {}),
    };
    const tokens = liveTokens(parseTokens(row[OPT.paneTokens]), context.now);
    if (tokens) pane.tokens = tokens;
    panes.push(pane);
    if (agent) agents.push(agent);
    if (paneFocused) focused ??= pane;

    const tab = tabs.get(row.window_id) ?? {
      tab_id: row.window_id,
      workspace_id: row.session_id,
      number: Number(row.window_index),
      label: row.window_name,
      focused: attached && row.window_active === '1',
      pane_count: 0,
      agent_status: 'unknown' as AgentStatus,
    };
    tab.pane_count += 1;
    tabs.set(row.window_id, tab);

    const workspace = workspaces.get(row.session_id) ?? {
      workspace_id: row.session_id,
      number: workspaces.size + 1,
      label: row.session_name,
      focused: attached,
      pane_count: 0,
      tab_count: 0,
      agent_status: 'unknown' as AgentStatus,
    };
    workspace.pane_count += 1;
    if (tab.pane_count === 1) workspace.tab_count += 1;
    if (row.window_active === '1') workspace.active_tab_id = row.window_id;
    const wsTokens = liveTokens(parseTokens(row[OPT.sessionTokens]), context.now);
    if (wsTokens) workspace.tokens = wsTokens;
    const worktree = worktreeOf(row);
    if (worktree) workspace.worktree = worktree;
    workspaces.set(row.session_id, workspace);
  }
  for (const tab of tabs.values()) {
    tab.agent_status = rollUp(agents.filter((a) => a.tab_id === tab.tab_id).map((a) => a.agent_status));
  }
  for (const ws of workspaces.values()) {
    ws.agent_status = rollUp(
      agents.filter((a) => a.workspace_id === ws.workspace_id).map((a) => a.agent_status),
    );
  }
  return {
    workspaces: [...workspaces.values()],
    tabs: [...tabs.values()],
    panes,
    agents,
    ...(focused
      ? {
          focused_workspace_id: focused.workspace_id,
          focused_tab_id: focused.tab_id,
          focused_pane_id: focused.pane_id,
        }
      : {}),
  };
}

/** The agent a pane holds: one dogsled started (its state from the hooks), or a reporting job pane. */
function agentOf(row: PaneRow, terminal: string, context: BuildContext): Agent | undefined {
  if (row.pane_dead === '1') return undefined;
  const kind = row[OPT.agent];
  const report = parseReport(row[OPT.report]);
  if (kind === '' && report === undefined) return undefined;
  const hook = kind === '' ? undefined : context.reports.get(terminal);
  const agentStatus: AgentStatus = kind === '' ? (report as PaneReport).state : (hook?.state ?? 'unknown');
  const agent: Agent = {
    terminal_id: terminal,
    agent: kind === '' ? (report as PaneReport).agent : kind,
    agent_status: agentStatus,
    workspace_id: row.session_id,
    tab_id: row.window_id,
    pane_id: row.pane_id,
    focused: Number(row.session_attached) > 0 && row.window_active === '1' && row.pane_active === '1',
    interactive_ready: true,
    state_change_seq: hook?.at_ms ?? 0,
    ...(row.pane_current_path ? { cwd: row.pane_current_path, foreground_cwd: row.pane_current_path } : {}),
  };
  if (row[OPT.name] !== '') agent.name = row[OPT.name];
  if (hook?.session) {
    agent.agent_session = { source: 'dogsled:hook', agent: agent.agent as string, ...hook.session };
  }
  const tokens = liveTokens(parseTokens(row[OPT.paneTokens]), context.now);
  if (tokens) agent.tokens = tokens;
  return agent;
}
