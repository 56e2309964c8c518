// One doctor or prune run, for every caller (the CLI, and the MCP server later): Herdr read once
// (terminal-facts.ts) and joined to this host's IO, then the survey as a report (doctor), or its
// removable entries as a plan that the caller confirms and that is applied entry by entry with a
// recheck before each removal (prune). Without Herdr there are simply no pane entries.

import { type PlanEntry, type PruneCategory, selectPlan } from '../core/cleanup/prune-plan.js';
import { DogsledError } from '../core/common/errors.js';
import { installSection } from '../install/install-facts.js';
import type { HostIO } from '../state/io.js';
import { type CleanupIO, surveyCleanup } from './doctor.js';
import type { DoctorReport, PruneReport } from './doctor-report.js';
import { gatherTerminalFacts, paneContext, type TerminalFacts } from './panes/pane-facts.js';
import { worktreePanes } from './panes/prune-closures.js';
import { applyPlan, type Outcome, type PruneIO } from './prune.js';

/** Who runs the cleanup: its directory (its repository is surveyed and its checkout held). */
export interface CleanupCaller {
  cwd: string;
  /** Told what the survey is doing, for a progress line on a terminal ('' when done). */
  progress?: (text: string) => void;
}

interface Session {
  io: CleanupIO;
  terminal: TerminalFacts;
}

/** Herdr's panes and workspaces and the holds they make, read once, joined to this host's IO. */
async function openSession(io: HostIO, caller: CleanupCaller): Promise<Session> {
  const terminal = await gatherTerminalFacts(io);
  return { terminal, io: cleanupIO(io, caller, terminal) };
}

function cleanupIO(io: HostIO, caller: CleanupCaller, terminal: TerminalFacts): CleanupIO {
  return {
    ...io,
    callerCwd: caller.cwd,
    holds: terminal.holds,
    paneRootPids: terminal.paneRootPids,
    discoveredPaths: terminal.discoveredPaths,
    workspaceCheckouts: terminal.workspaceCheckouts,
    herdr: terminal.herdr ?? undefined,
    terminalWarnings:
      terminal.error === null
        ? []
        : [`herdr: ${terminal.error}; live panes cannot be ruled out, so every checkout is held`],
    progress: caller.progress,
  };
}

/**
 * `dogsled doctor`: the survey as a report (with hot processes), and how this host has dogsled
 * installed (install-facts.ts), read at the same time; changes nothing.
 */
export async function doctorReport(io: HostIO, caller: CleanupCaller, host: string): Promise<DoctorReport> {
  const session = await openSession(io, caller);
  const live = session.terminal.herdr?.live;
  const herdr = live?.kind.startsWith('herdr')
    ? { port: live }
    : { why: session.terminal.why || 'not Herdr' };
  const [{ report }, install] = await Promise.all([
    surveyCleanup(session.io, { processes: true, host }),
    installSection({ ...io, platform: process.platform, herdr }),
  ]);
  return { ...report, install };
}

export interface PruneRequest {
  host: string;
  /** The categories to prune; empty for all. */
  categories: readonly PruneCategory[];
}

export interface PruneEvents {
  /** The survey's warnings, before anything is planned. */
  warnings?: (lines: readonly string[]) => void;
  /** Whether to apply this plan (never called for an empty one). */
  confirm: (plan: readonly PlanEntry[]) => Promise<boolean>;
  /** Each entry's outcome as it is applied. */
  outcome?: (outcome: Outcome) => void;
}

export type PruneRun =
  | { kind: 'nothing' }
  | { kind: 'declined'; plan: PlanEntry[] }
  | { kind: 'applied'; plan: PlanEntry[]; report: PruneReport };

/** Each removal's recheck reads Herdr again, and closes only what is still idle. */
function applyIO(session: Session): PruneIO {
  const herdr = session.terminal.herdr;
  if (!herdr) return session.io;
  return {
    ...session.io,
    holds: herdr.liveHolds,
    closures: {
      port: herdr.live,
      paneContext: () => paneContext(session.io, herdr.callerPaneId),
      worktreePanes: (path) =>
        worktreePanes(herdr.live, path, herdr.callerPaneId, () =>
          paneContext(session.io, herdr.callerPaneId),
        ),
    },
  };
}

/** `dogsled prune`: plan, confirm, then apply with a recheck before each removal. */
export async function pruneCleanup(
  io: HostIO,
  caller: CleanupCaller,
  request: PruneRequest,
  events: PruneEvents,
): Promise<PruneRun> {
  const { categories } = request;
  const session = await openSession(io, caller);
  const herdr = session.terminal.herdr;
  if (categories.includes('panes') && herdr === null) {
    throw new DogsledError(`prune panes: needs Herdr or tmux (${session.terminal.why})`);
  }
  const removesWorktrees = categories.length === 0 || categories.includes('worktrees');
  const survey = await surveyCleanup(session.io, { processes: false, host: request.host, removesWorktrees });
  events.warnings?.(survey.report.warnings);
  const plan = selectPlan(survey.plan, categories);
  if (plan.length === 0) return { kind: 'nothing' };
  if (!(await events.confirm(plan))) return { kind: 'declined', plan };
  const report = await applyPlan(applyIO(session), survey, plan, events.outcome);
  return { kind: 'applied', plan, report };
}

/** What one sweep pass found and did: the applied report, and the survey's findings. */
export interface SweepRun {
  report: PruneReport;
  warnings: string[];
  landed_dirty: DoctorReport['landed_dirty'];
  unlinked: DoctorReport['unlinked'];
}

/**
 * One requested sweep pass (spec, "The sweep in serve"): the doctor plan narrowed by `scope`, then
 * applied like prune's with a recheck before each removal. Nothing is asked: the plan holds only
 * entries whose removal loses nothing, and each recheck refuses what live work changed. Only the
 * repositories dogsled knows (remembered, registered worktrees, configured, live panes) are
 * surveyed: the directory the service was started in is held, never swept for being there.
 */
export async function sweepCleanup(
  io: HostIO,
  caller: CleanupCaller,
  host: string,
  scope: (plan: readonly PlanEntry[]) => PlanEntry[],
): Promise<SweepRun> {
  const session = await openSession(io, caller);
  session.io = { ...session.io, surveyCaller: false };
  const survey = await surveyCleanup(session.io, { processes: false, host, removesWorktrees: true });
  const plan = scope(selectPlan(survey.plan, []));
  const report = await applyPlan(applyIO(session), survey, plan);
  return {
    report,
    warnings: survey.report.warnings,
    landed_dirty: survey.report.landed_dirty,
    unlinked: survey.report.unlinked,
  };
}
