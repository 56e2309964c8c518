// zod schemas of the Herdr records the terminal port returns (CONTRACT §2.4), named as Herdr names
// their fields. Objects are loose because Herdr adds fields; optional fields are omitted, never
// null, and booleans Herdr omits when false read as absent. An unknown agent status reads as
// `unknown` rather than failing the whole reply.
// The process records are the core's (core/cleanup/pane-processes.ts), which the pane rule reads:
// the list below has tsc prove the schemas read exactly those.

import * as z from 'zod/mini';
import type { ForegroundProcess, ProcessInfo } from '../core/cleanup/pane-processes.js';
import { lazySchema } from '../state/engine/lazy-schema.js';
import type { Check, Matches } from '../state/engine/schema-match.js';
import '../state/engine/zod-messages.js';
import { TerminalError } from './terminal-errors.js';

export const AGENT_STATUSES = ['idle', 'working', 'blocked', 'done', 'unknown'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

const status = lazySchema(() => z.catch(z.enum(AGENT_STATUSES), 'unknown'));
const tokens = lazySchema(() => z.optional(z.record(z.string(), z.string())));
const text = lazySchema(() => z.optional(z.string()));
const flag = lazySchema(() => z.optional(z.boolean()));

export const WorktreeRefSchema = lazySchema(() =>
  z.looseObject({
    repo_key: z.string(),
    repo_name: z.string(),
    repo_root: z.string(),
    checkout_path: z.string(),
    is_linked_worktree: z.boolean(),
  }),
);

export const WorkspaceSchema = lazySchema(() =>
  z.looseObject({
    workspace_id: z.string(),
    number: z.number(),
    label: z.string(),
    focused: z.boolean(),
    pane_count: z.number(),
    tab_count: z.number(),
    active_tab_id: text,
    agent_status: status,
    tokens,
    worktree: z.optional(WorktreeRefSchema),
  }),
);

export const TabSchema = lazySchema(() =>
  z.looseObject({
    tab_id: z.string(),
    workspace_id: z.string(),
    number: z.number(),
    label: z.string(),
    focused: z.boolean(),
    pane_count: z.number(),
    agent_status: status,
  }),
);

export const AgentSessionSchema = lazySchema(() =>
  z.looseObject({
    source: z.string(),
    agent: z.string(),
    kind: z.string(),
    value: z.string(),
  }),
);

export const PaneSchema = lazySchema(() =>
  z.looseObject({
    pane_id: z.string(),
    terminal_id: z.string(),
    workspace_id: z.string(),
    tab_id: z.string(),
    focused: z.boolean(),
    cwd: text,
    foreground_cwd: text,
    label: text,
    agent: text,
    title: text,
    terminal_title: text,
    display_agent: text,
    agent_status: status,
    tokens,
    agent_session: z.optional(AgentSessionSchema),
    revision: z.optional(z.number()),
  }),
);

export const AgentSchema = lazySchema(() =>
  z.looseObject({
    terminal_id: z.string(),
    name: text,
    agent: text,
    title: text,
    terminal_title: text,
    display_agent: text,
    agent_status: status,
    tokens,
    agent_session: z.optional(AgentSessionSchema),
    workspace_id: z.string(),
    tab_id: z.string(),
    pane_id: z.string(),
    focused: z.boolean(),
    launch_pending: flag,
    interactive_ready: flag,
    state_change_seq: z.number(),
    cwd: text,
    foreground_cwd: text,
  }),
);

export const PaneReadSchema = lazySchema(() =>
  z.looseObject({
    /** Absent when the read came through the CLI, which prints the text alone. */
    pane_id: text,
    source: z.string(),
    text: z.string(),
    truncated: flag,
  }),
);

export const ProcessSchema = lazySchema(() =>
  z.looseObject({
    pid: z.number(),
    name: z.string(),
    argv0: text,
    argv: z.optional(z.array(z.string())),
    cmdline: text,
    cwd: text,
  }),
);

export const ProcessInfoSchema = lazySchema(() =>
  z.looseObject({
    pane_id: z.string(),
    shell_pid: z.optional(z.number()),
    foreground_process_group_id: z.optional(z.number()),
    foreground_processes: z.array(ProcessSchema),
  }),
);

export const WorktreeSchema = lazySchema(() =>
  z.looseObject({
    path: z.string(),
    branch: text,
    is_bare: z.boolean(),
    is_detached: z.boolean(),
    is_prunable: z.boolean(),
    is_linked_worktree: z.boolean(),
    open_workspace_id: text,
    label: z.string(),
  }),
);

export const WorktreeSourceSchema = lazySchema(() =>
  z.looseObject({
    repo_key: z.string(),
    repo_name: z.string(),
    repo_root: z.string(),
    source_checkout_path: z.string(),
    source_workspace_id: text,
  }),
);

export const NotificationSchema = lazySchema(() => z.looseObject({ shown: z.boolean(), reason: z.string() }));

/** A plugin Herdr has registered (`plugin.list`): what doctor checks of its own. */
export const PluginSchema = lazySchema(() =>
  z.looseObject({
    plugin_id: z.string(),
    version: z.optional(z.string()),
    enabled: z.optional(z.boolean()),
    plugin_root: z.optional(z.string()),
  }),
);

export const ServerInfoSchema = lazySchema(() =>
  z.looseObject({
    version: z.string(),
    protocol: z.number(),
    capabilities: z.optional(z.record(z.string(), z.unknown())),
  }),
);

/**
 * The terminal's listing: its workspaces, tabs, panes and agents in one request (Herdr's
 * `session.snapshot`), everything the service needs per tick.
 */
export const ListingSchema = lazySchema(() =>
  z.looseObject({
    version: text,
    protocol: z.optional(z.number()),
    focused_workspace_id: text,
    focused_tab_id: text,
    focused_pane_id: text,
    workspaces: z.array(WorkspaceSchema),
    tabs: z.array(TabSchema),
    panes: z.array(PaneSchema),
    agents: z.array(AgentSchema),
  }),
);

const RectSchema = lazySchema(() =>
  z.looseObject({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }),
);

/** PaneLayoutSnapshot: one tab's panes and splits with their cell rects (`pane.layout`). */
export const LayoutSchema = lazySchema(() =>
  z.looseObject({
    workspace_id: z.string(),
    tab_id: z.string(),
    zoomed: z.optional(z.boolean()),
    area: RectSchema,
    focused_pane_id: text,
    panes: z.array(z.looseObject({ pane_id: z.string(), focused: flag, rect: RectSchema })),
    splits: z.array(
      z.looseObject({ id: z.string(), direction: z.string(), ratio: z.number(), rect: RectSchema }),
    ),
  }),
);

/** `pane.swap`: whether anything moved, and the layout after it. */
export const PaneSwapSchema = lazySchema(() =>
  z.looseObject({
    changed: z.boolean(),
    reason: text,
    source_pane_id: z.string(),
    target_pane_id: text,
    layout: LayoutSchema,
  }),
);

/** A Herdr 0.9 saved machine (`herdr machine list --json`); only `id` is relied on. */
export const MachineSchema = lazySchema(() =>
  z.looseObject({
    id: z.string(),
    label: text,
    target: text,
    enabled: flag,
  }),
);

export type WorktreeRef = z.infer<typeof WorktreeRefSchema>;
export type Workspace = z.infer<typeof WorkspaceSchema>;
export type Tab = z.infer<typeof TabSchema>;
export type Pane = z.infer<typeof PaneSchema>;
export type Agent = z.infer<typeof AgentSchema>;
export type PaneRead = z.infer<typeof PaneReadSchema>;
/** One of a pane's foreground processes, as Herdr reports it. */
export type Worktree = z.infer<typeof WorktreeSchema>;
export type WorktreeSource = z.infer<typeof WorktreeSourceSchema>;
export type Notification = z.infer<typeof NotificationSchema>;
export type Plugin = z.infer<typeof PluginSchema>;
export type ServerInfo = z.infer<typeof ServerInfoSchema>;
export type Listing = z.infer<typeof ListingSchema>;
export type Machine = z.infer<typeof MachineSchema>;
export type Rect = z.infer<typeof RectSchema>;
export type Layout = z.infer<typeof LayoutSchema>;
export type PaneSwap = z.infer<typeof PaneSwapSchema>;

/** tsc fails here when the schema drifts from the core's record the pane rule reads (schema-match.ts). */
export type PortRecordsMatch = [
  Check<Matches<typeof ProcessSchema, ForegroundProcess>>,
  Check<Matches<typeof ProcessInfoSchema, ProcessInfo>>,
];

/** Validates one record of a reply; a record of the wrong shape is a `protocol` failure. */
export function parseRecord<T>(schema: z.ZodMiniType<T>, value: unknown, method: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new TerminalError(
    'protocol',
    `herdr ${method}: unexpected reply${where}: ${issue?.message ?? 'invalid'}`,
    {
      method,
    },
  );
}
