// Doctor's workspaces and panes sections and their plan entries: the pane rule (panes.ts) over the
// snapshot this run read. A workspace that shows a worktree the same plan removes closes with that
// worktree, so it is no entry of its own.

import type { PlanEntry } from '../../core/prune-plan.js';
import type { StateIO } from '../../state/io.js';
import type { JobRecord } from '../../state/job-records.js';
import { readPaneWatch } from '../../state/pane-watch-file.js';
import type { TerminalPort } from '../../terminal/port.js';
import { agentPaneFacts } from '../agent-records.js';
import type { DoctorReport } from '../report.js';
import { realOrSame } from './facts.js';
import { panesSection } from './judge.js';

/** What the sections need from Herdr (terminal-facts.ts gathers it). */
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
