// The pane rule (core/pane-rule.ts) applied to live panes: each pane's facts read from Herdr and its
// processes (prompt, directory, agent marks, records, the service's watch), then judged. Shared by
// doctor's section and prune's rechecks, so a closure judges a pane exactly as the plan did.

import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import {
  type AgentFacts,
  type InboxFacts,
  type JudgedPane,
  type OwnedWork,
  ownerKeep,
  type PaneFacts,
  type PaneRecord,
  type PaneVerdict,
  type PromptState,
  paneVerdict,
  type WorkspaceFacts,
} from '../../core/cleanup/pane-rule.js';
import { contains } from '../../core/cleanup/target-rule.js';
import { messageOf } from '../../core/common/errors.js';
import type { JobRecord } from '../../core/jobs/job-types.js';
import { stripEscapes } from '../../core/text/clean.js';
import { mapLimited } from '../../probe/map-limited.js';
import { type ChildReader, probePrompt, readChildren } from '../../probe/shell-panes.js';
import { type PaneWatch, watchEntries, watchMaxGap } from '../../state/records/pane-watch-file.js';
import type { TerminalPort } from '../../terminal/port.js';
import type { Listing, Pane } from '../../terminal/port-records.js';
import { isTerminalError, TerminalError } from '../../terminal/terminal-errors.js';

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
  /** Work each owner owns, by the owner's pane id (a launch-time id that may be an alias now). */
  owners?: ReadonlyMap<string, OwnedWork>;
  /** Inboxes by terminal id, or why none could be listed. */
  inboxes?: ReadonlyMap<string, InboxFacts> | { unreadable: string };
  children?: ChildReader;
  /** Parallel process checks; default one per available CPU. */
  width?: number;
  /** Worktrees the same plan removes: their idle shells close with them. */
  removedWorktrees?: readonly string[];
}

export interface Judged extends JudgedPane {
  terminalId: string;
  info: Pane;
  facts: PaneFacts;
}

/**
 * The caller's terminal: its HERDR_PANE_ID is the launch-time id, which stays an alias after a
 * move, so an id the listing does not show is resolved through Herdr.
 */
export async function callerTerminal(port: TerminalPort, listing: Listing, callerPaneId: string | null) {
  if (callerPaneId === null) return null;
  const listed = listing.panes.find((pane) => pane.pane_id === callerPaneId);
  if (listed) return listed.terminal_id;
  try {
    return (await port.currentPane(callerPaneId)).terminal_id;
  } catch (error) {
    if (!(error instanceof TerminalError)) throw error;
    return null;
  }
}

export function workspaceFacts(
  listing: Listing,
  closedWith: ReadonlyMap<string, string> | undefined,
): WorkspaceFacts[] {
  return listing.workspaces.map((workspace) => ({
    workspace: workspace.workspace_id,
    paneCount: workspace.pane_count,
    closedWithWorktree: closedWith?.get(workspace.workspace_id) ?? null,
  }));
}

/** Judges each pane under the rule; a pane that closed while it was checked is left out. */
export async function judgeAll(
  port: TerminalPort,
  listing: Listing,
  panes: readonly Pane[],
  ctx: PaneContext,
  callerTerminalId: string | null,
): Promise<Judged[]> {
  const agents = new Map(listing.agents.map((agent) => [agent.terminal_id, agent]));
  const watch = watchEntries(ctx.watch);
  const maxGap = watchMaxGap(ctx.watch);
  const children = ctx.children ?? readChildren;
  const ownerFacts = await ownerFactsOf(port, listing, ctx);
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
        ...ownerFacts(terminal),
      };
      const verdict: PaneVerdict = paneVerdict(facts, ctx.now, maxGap);
      const removedWorktree =
        cwd === null ? null : (ctx.removedWorktrees?.find((path) => contains(path, cwd)) ?? null);
      return {
        pane: pane.pane_id,
        workspace: pane.workspace_id,
        caller: facts.caller,
        verdict,
        // An owner's shell is never closed along with a worktree either.
        idleShell: agentFacts === null && prompt.kind === 'empty' && ownerKeep(facts) === null,
        removedWorktree,
        terminalId: terminal,
        info: pane,
        facts,
      } satisfies Judged;
    },
  );
  return judged.filter((pane): pane is Judged => pane !== null);
}

/** What makes each terminal an owner the rule keeps (core/pane-rule.ts `ownerKeep`). */
export async function ownerFactsOf(
  port: TerminalPort,
  listing: Listing,
  ctx: Pick<PaneContext, 'owners' | 'inboxes'>,
): Promise<(terminal: string) => Pick<PaneFacts, 'owns' | 'inbox'>> {
  const owned = await ownedByTerminal(port, listing, ctx.owners);
  const inboxes = ctx.inboxes;
  return (terminal) => {
    const owns = owned.get(terminal);
    const inbox =
      inboxes === undefined
        ? undefined
        : 'unreadable' in inboxes
          ? { unreadable: inboxes.unreadable }
          : inboxes.get(terminal);
    return { ...(owns === undefined ? {} : { owns }), ...(inbox === undefined ? {} : { inbox }) };
  };
}

/**
 * The work each terminal owns. Items and tickets name their owner by the pane id it had then, which
 * stays an alias after a move, so an id the listing does not show is resolved through Herdr; an id
 * Herdr no longer knows owns no pane here.
 */
async function ownedByTerminal(
  port: TerminalPort,
  listing: Listing,
  owners: ReadonlyMap<string, OwnedWork> | undefined,
): Promise<Map<string, OwnedWork>> {
  const byTerminal = new Map<string, OwnedWork>();
  for (const [owner, work] of owners ?? []) {
    if (work.items === 0 && work.tickets === 0) continue;
    const terminal = await callerTerminal(port, listing, owner);
    if (terminal === null) continue;
    const seen = byTerminal.get(terminal) ?? { items: 0, tickets: 0 };
    byTerminal.set(terminal, { items: seen.items + work.items, tickets: seen.tickets + work.tickets });
  }
  return byTerminal;
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

export function displayPath(path: string | null): string | null {
  if (path === null) return null;
  return stripEscapes(path.endsWith(DELETED) ? path.slice(0, -DELETED.length) : path);
}
