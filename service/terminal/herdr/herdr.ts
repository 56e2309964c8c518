// The Herdr backend of the terminal port: each port call is one Herdr method over a transport (the
// socket, or the CLI as fallback and for saved-machine forwarding). Replies are validated into
// records.ts types; the agent start over the socket adds the client-side readiness loop.

import type * as z from 'zod/mini';
import type { ProcessInfo } from '../../core/cleanup/pane-processes.js';
import type {
  AgentReport,
  AgentStarted,
  Created,
  CreateTabOptions,
  CreateWorkspaceOptions,
  LaunchedCommand,
  MetadataReport,
  MetadataResult,
  NotifyOptions,
  OpenPluginPaneOptions,
  OpenWorktreeOptions,
  ReadOptions,
  RunCommandOptions,
  SplitPaneOptions,
  StartAgentOptions,
  SwapDirection,
  TabCreated,
  TerminalKind,
  TerminalPort,
  WaitAgentOptions,
  WorktreeList,
  WorktreeOpened,
  WorktreeScope,
} from '../port.js';
import {
  type Agent,
  AgentSchema,
  type Layout,
  LayoutSchema,
  type Listing,
  ListingSchema,
  type Machine,
  type Notification,
  NotificationSchema,
  type Pane,
  type PaneRead,
  PaneReadSchema,
  PaneSchema,
  type PaneSwap,
  PaneSwapSchema,
  type Plugin,
  PluginSchema,
  ProcessInfoSchema,
  parseRecord,
  type ServerInfo,
  type Tab,
  TabSchema,
  type Workspace,
  WorkspaceSchema,
  WorktreeSchema,
  WorktreeSourceSchema,
} from '../port-records.js';
import { needsHerdr, TerminalError } from '../terminal-errors.js';
import { expectType, type Reply } from './envelope.js';
import { forwardedWhy } from './forwarded-why.js';
import { startAgentWithReadiness, startParams } from './herdr-agent-start.js';
import { type CallOptions, ROUTINE_TIMEOUT_MS, type Transport } from './herdr-channel.js';
import { CliTransport } from './herdr-cli.js';
import { listMachines } from './herdr-machines.js';
import { runInHerdr } from './herdr-run-command.js';
import type { SameReply } from './herdr-socket.js';
import { checkedListing } from './listing-check.js';

/** Extra client time on a wait beyond Herdr's own timeout, so Herdr's `timeout` answer wins. */
const WAIT_GRACE_MS = 5_000;

export interface HerdrTerminalOptions {
  transport: Transport;
  why: string;
  insideHerdr?: boolean;
  server?: ServerInfo;
  machine?: string;
  /** The herdr binary, for machine verbs and forwarding; undefined when none was found. */
  binary?: string;
  env: NodeJS.ProcessEnv;
  routineMs?: number;
}

/** Drops undefined values: Herdr wants optional fields omitted, and `params` is always an object. */
function clean(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
}

export class HerdrTerminal implements TerminalPort {
  readonly kind: TerminalKind;
  readonly why: string;
  readonly insideHerdr: boolean;
  readonly server: ServerInfo | undefined;
  readonly machine: string | undefined;
  private readonly transport: Transport;
  private readonly binary: string | undefined;
  private readonly env: NodeJS.ProcessEnv;
  private readonly routineMs: number;
  /** The last listing's reply (SameReply) and the listing checked from it. */
  private readonly listed: SameReply = {};
  private lastListing: { reply: Reply; listing: Listing } | undefined;

  constructor(options: HerdrTerminalOptions) {
    this.transport = options.transport;
    this.kind = options.transport.kind === 'socket' ? 'herdr-socket' : 'herdr-cli';
    this.why = options.why;
    this.insideHerdr = options.insideHerdr ?? false;
    this.server = options.server;
    this.machine = options.machine;
    this.binary = options.binary;
    this.env = options.env;
    this.routineMs = options.routineMs ?? ROUTINE_TIMEOUT_MS;
  }

  private async call(method: string, params: Record<string, unknown>, type: string, options?: CallOptions) {
    return expectType(await this.transport.call(method, clean(params), options), type, method);
  }

  private async ok(method: string, params: Record<string, unknown>): Promise<void> {
    await this.transport.call(method, clean(params));
  }

  private pane(reply: Reply, method: string, key = 'pane'): Pane {
    return parseRecord(PaneSchema, reply[key], method);
  }

  private created(reply: Reply, method: string): Created {
    return {
      workspace: parseRecord(WorkspaceSchema, reply.workspace, method),
      tab: parseRecord(TabSchema, reply.tab, method),
      root_pane: this.pane(reply, method, 'root_pane'),
    };
  }

  private list<T>(reply: Reply, key: string, method: string, schema: z.ZodMiniType<T>): T[] {
    const value = reply[key];
    if (!Array.isArray(value)) {
      throw new TerminalError('protocol', `herdr ${method}: reply has no ${key} list`, { method });
    }
    return value.map((entry) => parseRecord(schema, entry, method));
  }

  async listWorkspaces(): Promise<Workspace[]> {
    const reply = await this.call('workspace.list', {}, 'workspace_list');
    return this.list(reply, 'workspaces', 'workspace.list', WorkspaceSchema);
  }

  async getWorkspace(workspaceId: string): Promise<Workspace> {
    const reply = await this.call('workspace.get', { workspace_id: workspaceId }, 'workspace_info');
    return parseRecord(WorkspaceSchema, reply.workspace, 'workspace.get');
  }

  async createWorkspace(options: CreateWorkspaceOptions = {}): Promise<Created> {
    const reply = await this.call('workspace.create', { ...options }, 'workspace_created');
    return this.created(reply, 'workspace.create');
  }

  closeWorkspace(workspaceId: string): Promise<void> {
    return this.ok('workspace.close', { workspace_id: workspaceId });
  }

  async listTabs(workspaceId?: string): Promise<Tab[]> {
    const reply = await this.call('tab.list', { workspace_id: workspaceId }, 'tab_list');
    return this.list(reply, 'tabs', 'tab.list', TabSchema);
  }

  async createTab(options: CreateTabOptions = {}): Promise<TabCreated> {
    const { workspaceId, ...rest } = options;
    const reply = await this.call('tab.create', { workspace_id: workspaceId, ...rest }, 'tab_created');
    return {
      tab: parseRecord(TabSchema, reply.tab, 'tab.create'),
      root_pane: this.pane(reply, 'tab.create', 'root_pane'),
    };
  }

  closeTab(tabId: string): Promise<void> {
    return this.ok('tab.close', { tab_id: tabId });
  }

  async listPanes(workspaceId?: string): Promise<Pane[]> {
    const reply = await this.call('pane.list', { workspace_id: workspaceId }, 'pane_list');
    return this.list(reply, 'panes', 'pane.list', PaneSchema);
  }

  async getPane(paneId: string): Promise<Pane> {
    return this.pane(await this.call('pane.get', { pane_id: paneId }, 'pane_info'), 'pane.get');
  }

  async currentPane(callerPaneId?: string): Promise<Pane> {
    const reply = await this.call('pane.current', { caller_pane_id: callerPaneId }, 'pane_current');
    return this.pane(reply, 'pane.current');
  }

  async splitPane(options: SplitPaneOptions): Promise<Pane> {
    const { targetPaneId, workspaceId, ...rest } = options;
    const params = { target_pane_id: targetPaneId, workspace_id: workspaceId, ...rest };
    return this.pane(await this.call('pane.split', params, 'pane_info'), 'pane.split');
  }

  closePane(paneId: string): Promise<void> {
    return this.ok('pane.close', { pane_id: paneId });
  }

  focusPane(paneId: string): Promise<void> {
    return this.ok('pane.focus', { pane_id: paneId });
  }

  async paneLayout(paneId: string): Promise<Layout> {
    const reply = await this.call('pane.layout', { pane_id: paneId }, 'pane_layout');
    return parseRecord(LayoutSchema, reply.layout, 'pane.layout');
  }

  async swapPane(paneId: string, direction: SwapDirection): Promise<PaneSwap> {
    const reply = await this.call('pane.swap', { pane_id: paneId, direction }, 'pane_swap');
    return parseRecord(PaneSwapSchema, reply.swap, 'pane.swap');
  }

  async setSplitRatio(paneId: string, path: readonly boolean[], ratio: number): Promise<void> {
    await this.call('layout.set_split_ratio', { pane_id: paneId, path, ratio }, 'layout_split_ratio_set');
  }

  async readPane(paneId: string, options: ReadOptions = {}): Promise<PaneRead> {
    const params = {
      pane_id: paneId,
      source: options.source ?? 'recent',
      lines: options.lines,
      format: options.format,
    };
    const reply = await this.call('pane.read', params, 'pane_read');
    return parseRecord(PaneReadSchema, { pane_id: paneId, ...(reply.read as object) }, 'pane.read');
  }

  async processInfo(paneId: string): Promise<ProcessInfo> {
    const reply = await this.call('pane.process_info', { pane_id: paneId }, 'pane_process_info');
    return parseRecord(ProcessInfoSchema, reply.process_info, 'pane.process_info');
  }

  sendInput(paneId: string, input: { text?: string; keys?: string[] }): Promise<void> {
    return this.ok('pane.send_input', { pane_id: paneId, text: input.text, keys: input.keys });
  }

  runLine(paneId: string, line: string): Promise<void> {
    return this.sendInput(paneId, { text: line, keys: ['Enter'] });
  }

  async listAgents(): Promise<Agent[]> {
    const reply = await this.call('agent.list', {}, 'agent_list');
    return this.list(reply, 'agents', 'agent.list', AgentSchema);
  }

  async getAgent(target: string): Promise<Agent> {
    const reply = await this.call('agent.get', { target }, 'agent_info');
    return parseRecord(AgentSchema, reply.agent, 'agent.get');
  }

  async startAgent(options: StartAgentOptions): Promise<AgentStarted> {
    if (this.transport.kind === 'socket') return startAgentWithReadiness(this.transport, options);
    // The CLI runs the readiness loop itself and answers once the agent is ready.
    const deadline = (options.timeoutMs ?? 30_000) + WAIT_GRACE_MS;
    const reply = await this.call('agent.start', startParams(options), 'agent_started', {
      timeoutMs: Math.max(deadline, this.routineMs),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const agent = parseRecord(AgentSchema, reply.agent, 'agent.start');
    return Array.isArray(reply.argv) ? { agent, argv: reply.argv as string[] } : { agent };
  }

  async waitAgent(target: string, options: WaitAgentOptions = {}): Promise<Agent> {
    const params = { target, until: options.until, timeout_ms: options.timeoutMs };
    const reply = await this.call('agent.wait', params, 'agent_info', {
      timeoutMs: options.timeoutMs === undefined ? null : options.timeoutMs + WAIT_GRACE_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return parseRecord(AgentSchema, reply.agent, 'agent.wait');
  }

  async readAgent(target: string, options: ReadOptions = {}): Promise<PaneRead> {
    const params = {
      target,
      source: options.source ?? 'recent',
      lines: options.lines,
      format: options.format,
    };
    const reply = await this.call('agent.read', params, 'pane_read');
    return parseRecord(PaneReadSchema, reply.read, 'agent.read');
  }

  async listWorktrees(scope: WorktreeScope = {}): Promise<WorktreeList> {
    const reply = await this.call('worktree.list', scopeParams(scope), 'worktree_list');
    return {
      source: parseRecord(WorktreeSourceSchema, reply.source, 'worktree.list'),
      worktrees: this.list(reply, 'worktrees', 'worktree.list', WorktreeSchema),
    };
  }

  async openWorktree(options: OpenWorktreeOptions): Promise<WorktreeOpened> {
    const { label, focus, path, branch } = options as OpenWorktreeOptions & {
      path?: string;
      branch?: string;
    };
    const params = { ...scopeParams(options), path, branch, label, focus };
    const reply = await this.call('worktree.open', params, 'worktree_opened');
    return {
      ...this.created(reply, 'worktree.open'),
      worktree: (reply.worktree ?? {}) as Record<string, unknown>,
      already_open: reply.already_open === true,
    };
  }

  async reportPaneMetadata(paneId: string, report: MetadataReport): Promise<MetadataResult> {
    await this.ok('pane.report_metadata', { pane_id: paneId, ...metadataParams(report) });
    return { applied: true };
  }

  async reportWorkspaceMetadata(workspaceId: string, report: MetadataReport): Promise<MetadataResult> {
    await this.ok('workspace.report_metadata', { workspace_id: workspaceId, ...metadataParams(report) });
    return { applied: true };
  }

  async reportAgent(paneId: string, report: AgentReport): Promise<MetadataResult> {
    await this.ok('pane.report_agent', { pane_id: paneId, ...report });
    return { applied: true };
  }

  async notify(options: NotifyOptions): Promise<Notification> {
    const reply = await this.call('notification.show', { ...options }, 'notification_show');
    return parseRecord(NotificationSchema, reply, 'notification.show');
  }

  async openPluginPane(options: OpenPluginPaneOptions): Promise<Pane | undefined> {
    const { pluginId, workspaceId, targetPaneId, ...rest } = options;
    const params = { plugin_id: pluginId, workspace_id: workspaceId, target_pane_id: targetPaneId, ...rest };
    const reply = await this.transport.call('plugin.pane.open', clean(params));
    if (reply.type === 'ok') return undefined; // a popup: Herdr gives it no pane
    expectType(reply, 'plugin_pane_opened', 'plugin.pane.open');
    return this.pane(reply.plugin_pane as Reply, 'plugin.pane.open');
  }

  async closePluginPane(paneId: string): Promise<void> {
    await this.ok('plugin.pane.close', { pane_id: paneId });
  }

  async listPlugins(pluginId?: string): Promise<Plugin[]> {
    const reply = await this.call('plugin.list', { plugin_id: pluginId }, 'plugin_list');
    return this.list(reply, 'plugins', 'plugin.list', PluginSchema);
  }

  runCommand(options: RunCommandOptions): Promise<LaunchedCommand> {
    return runInHerdr(this, options);
  }

  /**
   * The listing. A port kept from one call to the next (the service's agent lane keeps its port
   * while Herdr answers) hands back the very listing of its last call when Herdr's reply is the
   * same bytes (herdr-socket.ts, SameReply): shared, so a caller reads it and never changes it.
   */
  async listAll(options: { signal?: AbortSignal } = {}): Promise<Listing> {
    const reply = await this.call('session.snapshot', {}, 'session_snapshot', {
      ...options,
      same: this.listed,
    });
    if (this.lastListing?.reply === reply) return this.lastListing.listing;
    // The hand check gives what the schema gives, at half zod's cost (the service lists every
    // tick); a listing it doubts goes to zod, so a bad one fails exactly as it always did.
    const listing =
      checkedListing(reply.snapshot) ?? parseRecord(ListingSchema, reply.snapshot, 'session.snapshot');
    this.lastListing = { reply, listing };
    return listing;
  }

  machines(): Promise<Machine[] | null> {
    return listMachines(this.binary, this.env, this.routineMs);
  }

  forMachine(machine: string): TerminalPort {
    return forwardedPort(machine, this.binary, this.env, this.routineMs);
  }
}

function scopeParams(scope: WorktreeScope): Record<string, unknown> {
  return { workspace_id: scope.workspaceId, cwd: scope.cwd };
}

function metadataParams(report: MetadataReport): Record<string, unknown> {
  return { source: report.source, tokens: report.tokens, seq: report.seq, ttl_ms: report.ttlMs };
}

/** A transport for a port that cannot reach Herdr at all: every call is the same refusal. */
export class RefusingTransport implements Transport {
  readonly kind = 'cli';
  readonly target = 'none';
  constructor(
    private readonly command: string,
    private readonly why: string,
  ) {}
  call(method: string): Promise<Reply> {
    return Promise.reject(needsHerdr(this.command, this.why, method));
  }
}

/** Forwarding goes through the CLI (`--machine`); without a binary every call is refused. */
export function forwardedPort(
  machine: string,
  binary: string | undefined,
  env: NodeJS.ProcessEnv,
  routineMs: number,
): TerminalPort {
  const transport = binary
    ? new CliTransport(binary, env, ['--machine', machine], routineMs)
    : new RefusingTransport(`forwarding to machine ${machine}`, 'no herdr binary is on PATH');
  return new HerdrTerminal({
    transport,
    why: forwardedWhy(machine, binary),
    machine,
    ...(binary ? { binary } : {}),
    env,
    routineMs,
  });
}
