// Doctor's workspaces and panes sections and their plan entries: the pane rule (judge.ts) over the
// listing this run read. The section changes nothing. A workspace that shows a worktree the same
// plan removes closes with that worktree, so it is no entry of its own.

import * as z from 'zod/mini';
import { type PaneDisposition, type PaneFacts, workspaceVerdicts } from '../../core/cleanup/pane-rule.js';
import type { PlanEntry } from '../../core/cleanup/prune-plan.js';
import { messageOf } from '../../core/common/errors.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import { stripEscapes } from '../../core/text/clean.js';
import { lazySchema } from '../../state/engine/lazy-schema.js';
import type { StateIO } from '../../state/io.js';
import { readPaneWatch } from '../../state/records/pane-watch-file.js';
import type { TerminalPort } from '../../terminal/port.js';
import type { Listing } from '../../terminal/port-records.js';
import { isTerminalError } from '../../terminal/terminal-errors.js';
import { agentPaneFacts } from '../agent-records.js';
import type { DoctorReport } from '../doctor-report.js';
import { callerTerminal, displayPath, judgeAll, type PaneContext, workspaceFacts } from './judge.js';
import { realOrSame } from './pane-facts.js';

export const PaneEntrySchema = lazySchema(() =>
  z.object({
    pane: z.string(),
    terminal_id: z.string(),
    workspace: z.string(),
    tab: z.string(),
    cwd: z.nullable(z.string()),
    /** The agent kind Herdr detected, else null. */
    agent: z.nullable(z.string()),
    /** What runs there: the program only, never its arguments. */
    program: z.nullable(z.string()),
    /** `with_workspace` and `with_worktree` panes leave with that entry, never on their own. */
    state: z.enum(['removable', 'kept', 'with_workspace', 'with_worktree']),
    removable: z.boolean(),
    reason: z.string(),
  }),
);

export const WorkspaceEntrySchema = lazySchema(() =>
  z.object({
    workspace: z.string(),
    label: z.string(),
    cwd: z.nullable(z.string()),
    /** Every pane it holds, as planned: a closure refuses a workspace whose panes changed. */
    panes: z.array(z.object({ pane: z.string(), terminal_id: z.string() })),
    removable: z.boolean(),
    reason: z.string(),
  }),
);

export type PaneEntry = z.infer<typeof PaneEntrySchema>;
export type WorkspaceEntry = z.infer<typeof WorkspaceEntrySchema>;

export interface PanesSectionOptions extends PaneContext {
  port: TerminalPort;
  /** Workspaces that a worktree removal in the same plan closes: workspace id → worktree path. */
  closedWithWorktree?: ReadonlyMap<string, string>;
}

export interface PanesSection {
  panes: PaneEntry[];
  workspaces: WorkspaceEntry[];
  warnings: string[];
}

const ENTRY_STATES: Record<PaneDisposition, PaneEntry['state']> = {
  close: 'removable',
  keep: 'kept',
  with_workspace: 'with_workspace',
  with_worktree: 'with_worktree',
};

export async function panesSection(options: PanesSectionOptions): Promise<PanesSection> {
  let listing: Listing;
  try {
    listing = await options.port.listAll();
  } catch (error) {
    if (!isTerminalError(error)) throw error;
    return { panes: [], workspaces: [], warnings: [`herdr: ${messageOf(error)}; panes were not checked`] };
  }
  const caller = await callerTerminal(options.port, listing, options.callerPaneId);
  const judged = await judgeAll(options.port, listing, listing.panes, options, caller);
  const plan = workspaceVerdicts(workspaceFacts(listing, options.closedWithWorktree), judged);
  const byPane = new Map(judged.map((pane) => [pane.pane, pane]));
  const panes = plan.panes.flatMap((planned): PaneEntry[] => {
    const pane = byPane.get(planned.pane);
    if (!pane) return [];
    return [
      {
        pane: planned.pane,
        terminal_id: pane.terminalId,
        workspace: planned.workspace,
        tab: pane.info.tab_id,
        cwd: pane.facts.cwd,
        agent: pane.facts.agent?.kind ?? null,
        program: programOf(pane.facts),
        state: ENTRY_STATES[planned.disposition],
        removable: planned.disposition === 'close',
        reason: planned.reason,
      },
    ];
  });
  const workspaces = plan.workspaces.flatMap((planned): WorkspaceEntry[] => {
    const info = listing.workspaces.find((workspace) => workspace.workspace_id === planned.workspace);
    if (!info) return [];
    const own = planned.panes.flatMap((id) => byPane.get(id) ?? []);
    return [
      {
        workspace: planned.workspace,
        label: stripEscapes(info.label),
        cwd: displayPath(info.worktree?.checkout_path ?? own[0]?.facts.cwd ?? null),
        panes: own.map((pane) => ({ pane: pane.pane, terminal_id: pane.terminalId })),
        removable: planned.verdict.kind === 'close',
        reason: planned.verdict.reason,
      },
    ];
  });
  return { panes, workspaces, warnings: [] };
}

/** What the sections need from Herdr (facts.ts gathers it). */
export interface DoctorHerdr {
  port: TerminalPort;
  /** HERDR_PANE_ID of the caller: its pane and workspace stay. */
  callerPaneId: string | null;
  /** Workspaces that show a checkout, paths resolved. */
  shows: ReadonlyArray<{ workspace: string; checkout: string }>;
}

export interface PanesOptions {
  jobs: readonly JobRecord[];
  now: number;
  removesWorktrees: boolean;
}

export async function addPanes(
  io: StateIO,
  herdr: DoctorHerdr,
  options: PanesOptions,
  report: DoctorReport,
  plan: PlanEntry[],
): Promise<void> {
  const removed = new Map<string, string>();
  if (options.removesWorktrees) {
    for (const entry of plan) {
      if (entry.kind === 'worktree') removed.set(await realOrSame(entry.path), entry.path);
    }
  }
  const closedWithWorktree = new Map<string, string>();
  for (const shown of herdr.shows) {
    const path = removed.get(shown.checkout);
    if (path !== undefined) closedWithWorktree.set(shown.workspace, path);
  }
  const section = await panesSection({
    port: herdr.port,
    callerPaneId: herdr.callerPaneId,
    jobs: options.jobs,
    watch: await readPaneWatch(io),
    now: options.now,
    ...(await agentPaneFacts(io)),
    closedWithWorktree,
    removedWorktrees: [...removed.keys()],
  });
  report.workspaces = section.workspaces;
  report.panes = section.panes;
  report.warnings.push(...section.warnings);
  for (const workspace of section.workspaces) {
    if (!workspace.removable) continue;
    plan.push({
      kind: 'workspace',
      workspace: workspace.workspace,
      label: workspace.label,
      cwd: workspace.cwd,
      panes: workspace.panes,
      reason: workspace.reason,
    });
  }
  for (const pane of section.panes) {
    if (!pane.removable) continue;
    plan.push({
      kind: 'pane',
      pane: pane.pane,
      terminal_id: pane.terminal_id,
      workspace: pane.workspace,
      cwd: pane.cwd,
      program: pane.program,
      reason: pane.reason,
    });
  }
}

function programOf(facts: PaneFacts): string | null {
  if (facts.agent) return facts.agent.kind;
  if (facts.prompt.kind === 'empty') return facts.prompt.shell;
  if (facts.prompt.kind === 'running') return facts.prompt.program;
  return null;
}
