// Doctor's panes and workspaces sections and prune's pane and workspace closures, under the one pane
// rule (core/pane-rule.ts). The section changes nothing. A closure rechecks the live pane right
// before it closes it: found by terminal id (a pane id is only a location), a pane id that now
// holds another terminal is an identity failure, a pane that is busy now is skipped, a closed one is gone.

import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import * as z from 'zod/mini';
import {
  type AgentFacts,
  type JudgedPane,
  type PaneDisposition,
  type PaneFacts,
  type PaneRecord,
  type PaneVerdict,
  type PromptState,
  paneVerdict,
  type WorkspaceFacts,
  workspaceVerdicts,
} from '../../core/pane-rule.js';
import { stripEscapes } from '../../core/strip-escapes.js';
import { contains } from '../../core/target-rule.js';
import { messageOf } from '../../errors.js';
import { mapLimited } from '../../probe/map-limited.js';
import { type ChildReader, probePrompt, readChildren } from '../../probe/shell-panes.js';
import type { JobRecord } from '../../state/job-records.js';
import { type PaneWatch, watchEntries, watchMaxGap } from '../../state/pane-watch-file.js';
import { isTerminalError, TerminalError } from '../../terminal/errors.js';
import type { TerminalPort } from '../../terminal/port.js';
import type { Pane, Snapshot } from '../../terminal/records.js';

export const PaneEntrySchema = z.object({
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
});

export const WorkspaceEntrySchema = z.object({
  workspace: z.string(),
  label: z.string(),
  cwd: z.nullable(z.string()),
  /** Every pane it holds, as planned: a closure refuses a workspace whose panes changed. */
  panes: z.array(z.object({ pane: z.string(), terminal_id: z.string() })),
  removable: z.boolean(),
  reason: z.string(),
});

export type PaneEntry = z.infer<typeof PaneEntrySchema>;
export type WorkspaceEntry = z.infer<typeof WorkspaceEntrySchema>;

/** What the rule needs besides the live panes; the same for the section and each recheck. */
export interface PaneContext {
  /** HERDR_PANE_ID of the process that cleans up (for the sweep, the service's own pane). */
  callerPaneId: string | null;
  jobs: readonly JobRecord[];
  /** pane-watch.json as the service last wrote it; read it again right before rechecks. */
  watch: PaneWatch | undefined;
  now: number;
  /** Launch and agent-item records that own a terminal, by terminal id. */
  records?: ReadonlyMap<string, readonly PaneRecord[]>;
  /** Done marks and open children of agents, by terminal id. */
  agentMarks?: ReadonlyMap<string, { done: boolean; openChildren: number }>;
  children?: ChildReader;
  /** Parallel process checks; default one per available CPU. */
  width?: number;
  /** Worktrees the same plan removes: their idle shells close with them. */
  removedWorktrees?: readonly string[];
}

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

export type Closure =
  | { kind: 'closed'; target: string; panes: string[] }
  /** Already closed by something else: not a failure. */
  | { kind: 'gone'; target: string }
  /** Live work changed it since the plan (busy now, a new pane...): kept, and not a failure. */
  | { kind: 'skipped'; target: string; reason: string }
  /** A changed identity, unreadable evidence or a failed close. */
  | { kind: 'failed'; target: string; reason: string };

const ENTRY_STATES: Record<PaneDisposition, PaneEntry['state']> = {
  close: 'removable',
  keep: 'kept',
  with_workspace: 'with_workspace',
  with_worktree: 'with_worktree',
};

interface Judged extends JudgedPane {
  terminalId: string;
  info: Pane;
  facts: PaneFacts;
}

export async function panesSection(options: PanesSectionOptions): Promise<PanesSection> {
  let snapshot: Snapshot;
  try {
    snapshot = await options.port.snapshot();
  } catch (error) {
    if (!isTerminalError(error)) throw error;
    return { panes: [], workspaces: [], warnings: [`herdr: ${messageOf(error)}; panes were not checked`] };
  }
  const caller = await callerTerminal(options.port, snapshot, options.callerPaneId);
  const judged = await judgeAll(options.port, snapshot, snapshot.panes, options, caller);
  const plan = workspaceVerdicts(workspaceFacts(snapshot, options.closedWithWorktree), judged);
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
    const info = snapshot.workspaces.find((workspace) => workspace.workspace_id === planned.workspace);
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

/** Rechecks one planned pane against the live one, then closes it when the rule still says so. */
export async function prunePane(
  port: TerminalPort,
  entry: Pick<PaneEntry, 'pane' | 'terminal_id'>,
  ctx: PaneContext,
): Promise<Closure> {
  const target = entry.pane;
  const read = await readSnapshot(port, target);
  if (!read.ok) return read.closure;
  const snapshot = read.snapshot;
  const live = snapshot.panes.find((pane) => pane.terminal_id === entry.terminal_id);
  if (!live) {
    const other = snapshot.panes.find((pane) => pane.pane_id === entry.pane);
    if (other) return { kind: 'failed', target, reason: changedTerminal(other, entry.terminal_id) };
    return { kind: 'gone', target };
  }
  const caller = await callerTerminal(port, snapshot, ctx.callerPaneId);
  const [judged] = await judgeAll(port, snapshot, [live], ctx, caller);
  if (!judged) return { kind: 'gone', target };
  if (judged.verdict.kind === 'keep') return { kind: 'skipped', target, reason: judged.verdict.reason };
  return close(target, [live.pane_id], () => port.closePane(live.pane_id));
}

/** Rechecks a planned workspace (same panes, every one still qualifies), then closes it whole. */
export async function pruneWorkspace(
  port: TerminalPort,
  entry: Pick<WorkspaceEntry, 'workspace' | 'panes'>,
  ctx: PaneContext,
): Promise<Closure> {
  const target = entry.workspace;
  const read = await readSnapshot(port, target);
  if (!read.ok) return read.closure;
  const snapshot = read.snapshot;
  if (!snapshot.workspaces.some((workspace) => workspace.workspace_id === target))
    return { kind: 'gone', target };
  const live = snapshot.panes.filter((pane) => pane.workspace_id === target);
  for (const planned of entry.panes) {
    const other = live.find(
      (pane) => pane.pane_id === planned.pane && pane.terminal_id !== planned.terminal_id,
    );
    if (other) return { kind: 'failed', target, reason: changedTerminal(other, planned.terminal_id) };
  }
  const plannedTerminals = new Set(entry.panes.map((pane) => pane.terminal_id));
  const added = live.find((pane) => !plannedTerminals.has(pane.terminal_id));
  if (added) return { kind: 'skipped', target, reason: `pane ${added.pane_id} opened in it after the plan` };
  const caller = await callerTerminal(port, snapshot, ctx.callerPaneId);
  const judged = await judgeAll(port, snapshot, live, ctx, caller);
  if (judged.length !== live.length)
    return { kind: 'skipped', target, reason: 'a pane of it closed during the recheck' };
  const facts = workspaceFacts(snapshot, undefined).filter((workspace) => workspace.workspace === target);
  const [plan] = workspaceVerdicts(facts, judged).workspaces;
  if (!plan) return { kind: 'gone', target };
  if (plan.verdict.kind === 'keep') return { kind: 'skipped', target, reason: plan.verdict.reason };
  return close(
    target,
    live.map((pane) => pane.pane_id),
    () => port.closeWorkspace(target),
  );
}

async function close(target: string, panes: string[], run: () => Promise<void>): Promise<Closure> {
  try {
    await run();
  } catch (error) {
    if (isTerminalError(error, 'pane_not_found') || isTerminalError(error, 'workspace_not_found')) {
      return { kind: 'gone', target };
    }
    if (!(error instanceof TerminalError)) throw error;
    return { kind: 'failed', target, reason: `close failed: ${messageOf(error)}` };
  }
  return { kind: 'closed', target, panes };
}

async function readSnapshot(
  port: TerminalPort,
  target: string,
): Promise<{ ok: true; snapshot: Snapshot } | { ok: false; closure: Closure }> {
  try {
    return { ok: true, snapshot: await port.snapshot() };
  } catch (error) {
    if (!(error instanceof TerminalError)) throw error;
    return {
      ok: false,
      closure: { kind: 'failed', target, reason: `cannot read Herdr: ${messageOf(error)}` },
    };
  }
}

function changedTerminal(pane: Pane, planned: string): string {
  return `identity changed: pane ${pane.pane_id} now holds terminal ${pane.terminal_id}, not ${planned}`;
}

/**
 * The caller's terminal: its HERDR_PANE_ID is the launch-time id, which stays an alias after a
 * move, so an id the snapshot does not list is resolved through Herdr.
 */
async function callerTerminal(port: TerminalPort, snapshot: Snapshot, callerPaneId: string | null) {
  if (callerPaneId === null) return null;
  const listed = snapshot.panes.find((pane) => pane.pane_id === callerPaneId);
  if (listed) return listed.terminal_id;
  try {
    return (await port.currentPane(callerPaneId)).terminal_id;
  } catch (error) {
    if (!(error instanceof TerminalError)) throw error;
    return null;
  }
}

function workspaceFacts(
  snapshot: Snapshot,
  closedWith: ReadonlyMap<string, string> | undefined,
): WorkspaceFacts[] {
  return snapshot.workspaces.map((workspace) => ({
    workspace: workspace.workspace_id,
    paneCount: workspace.pane_count,
    closedWithWorktree: closedWith?.get(workspace.workspace_id) ?? null,
  }));
}

/** Judges each pane under the rule; a pane that closed while it was checked is left out. */
async function judgeAll(
  port: TerminalPort,
  snapshot: Snapshot,
  panes: readonly Pane[],
  ctx: PaneContext,
  callerTerminalId: string | null,
): Promise<Judged[]> {
  const agents = new Map(snapshot.agents.map((agent) => [agent.terminal_id, agent]));
  const watch = watchEntries(ctx.watch);
  const maxGap = watchMaxGap(ctx.watch);
  const children = ctx.children ?? readChildren;
  const judged = await mapLimited(
    panes,
    ctx.width ?? availableParallelism(),
    async (pane): Promise<Judged | null> => {
      const terminal = pane.terminal_id;
      const agent = agents.get(terminal);
      let agentFacts: AgentFacts | null = null;
      let prompt: PromptState = { kind: 'unknown', reason: 'not checked' };
      let cwd = pane.foreground_cwd ?? pane.cwd ?? null;
      let directoryGone: boolean | null = null;
      if (pane.agent !== undefined || agent !== undefined) {
        const marks = ctx.agentMarks?.get(terminal);
        agentFacts = {
          kind: pane.agent ?? agent?.agent ?? null,
          status: agent?.agent_status ?? pane.agent_status,
          doneMark: marks?.done ?? false,
          openChildren: marks?.openChildren ?? 0,
        };
      } else {
        try {
          const probe = await probePrompt(port, pane.pane_id, children);
          prompt = probe.state;
          cwd = probe.cwd ?? pane.cwd ?? null;
        } catch (error) {
          if (isTerminalError(error, 'pane_not_found')) return null;
          if (!(error instanceof TerminalError)) throw error;
          prompt = { kind: 'unknown', reason: `its processes cannot be read (${messageOf(error)})` };
        }
        if (prompt.kind === 'empty') directoryGone = await isDirectoryGone(cwd);
      }
      cwd = displayPath(cwd);
      const facts: PaneFacts = {
        pane: pane.pane_id,
        terminalId: terminal,
        caller: terminal === callerTerminalId || pane.pane_id === ctx.callerPaneId,
        focused: pane.focused,
        agent: agentFacts,
        prompt,
        directoryGone,
        cwd,
        records: [...jobRecordsOf(pane, ctx.jobs), ...(ctx.records?.get(terminal) ?? [])],
        watch: watch[terminal],
      };
      const verdict: PaneVerdict = paneVerdict(facts, ctx.now, maxGap);
      const removedWorktree =
        cwd === null ? null : (ctx.removedWorktrees?.find((path) => contains(path, cwd)) ?? null);
      return {
        pane: pane.pane_id,
        workspace: pane.workspace_id,
        caller: facts.caller,
        verdict,
        idleShell: agentFacts === null && prompt.kind === 'empty',
        removedWorktree,
        terminalId: terminal,
        info: pane,
        facts,
      } satisfies Judged;
    },
  );
  return judged.filter((pane): pane is Judged => pane !== null);
}

/**
 * The jobs that ran in this pane. A record that names its terminal must match it; one that names
 * only the pane matches by pane id (ids are never reused while a Herdr server runs).
 */
function jobRecordsOf(pane: Pane, jobs: readonly JobRecord[]): PaneRecord[] {
  return jobs
    .filter((job) => job.pane === pane.pane_id)
    .filter((job) => typeof job.terminal_id !== 'string' || job.terminal_id === pane.terminal_id)
    .map((job) => ({ kind: 'job', id: job.id, finished: job.ended_ms !== null }));
}

/** Linux shows a removed working directory as "<path> (deleted)". Unknown when it cannot be checked. */
async function isDirectoryGone(cwd: string | null): Promise<boolean | null> {
  if (cwd === null) return null;
  if (cwd.endsWith(DELETED)) return true;
  try {
    return !(await stat(cwd)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? true : null;
  }
}

const DELETED = ' (deleted)';

function displayPath(path: string | null): string | null {
  if (path === null) return null;
  return stripEscapes(path.endsWith(DELETED) ? path.slice(0, -DELETED.length) : path);
}

function programOf(facts: PaneFacts): string | null {
  if (facts.agent) return facts.agent.kind;
  if (facts.prompt.kind === 'empty') return facts.prompt.shell;
  if (facts.prompt.kind === 'running') return facts.prompt.program;
  return null;
}
