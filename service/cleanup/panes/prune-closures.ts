// Prune's pane, workspace and worktree-pane closures. Each rechecks the live panes right before it
// closes them: found by terminal id (a pane id is only a location), a pane id that now holds another
// terminal is an identity failure, a pane that is busy now is skipped, a closed one is gone. The
// Herdr side of a worktree removal (spec: "teardown, the panes and workspace, unlock, git worktree
// remove…") is the panes that work in the worktree and the workspace that shows it, checked before
// the teardown (a pane that is not an idle shell keeps the worktree: a skip) and again right before
// they close, so nothing busy is ever closed with a worktree.

import { paneActivity } from '../../core/cleanup/holds.js';
import { ownerKeep, workspaceVerdicts } from '../../core/cleanup/pane-rule.js';
import { contains } from '../../core/cleanup/target-rule.js';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import type { TerminalPort } from '../../terminal/port.js';
import type { Listing, Pane } from '../../terminal/port-records.js';
import { isTerminalError, TerminalError } from '../../terminal/terminal-errors.js';
import type { PaneEntry, WorkspaceEntry } from './doctor-section.js';
import { callerTerminal, judgeAll, ownerFactsOf, type PaneContext, workspaceFacts } from './judge.js';
import { type ReadPane, readPanes, realOrSame } from './pane-facts.js';

export type Closure =
  | { kind: 'closed'; target: string; panes: string[] }
  /** Already closed by something else: not a failure. */
  | { kind: 'gone'; target: string }
  /** Live work changed it since the plan (busy now, a new pane...): kept, and not a failure. */
  | { kind: 'skipped'; target: string; reason: string }
  /** A changed identity, unreadable evidence or a failed close. */
  | { kind: 'failed'; target: string; reason: string };

/** Rechecks one planned pane against the live one, then closes it when the rule still says so. */
export function prunePane(
  port: TerminalPort,
  entry: Pick<PaneEntry, 'pane' | 'terminal_id'>,
  ctx: PaneContext,
): Promise<Closure> {
  const target = entry.pane;
  return recheck(port, target, async (listing) => {
    const live = listing.panes.find((pane) => pane.terminal_id === entry.terminal_id);
    if (!live) {
      const other = listing.panes.find((pane) => pane.pane_id === entry.pane);
      if (other) return { kind: 'failed', target, reason: changedTerminal(other, entry.terminal_id) };
      return { kind: 'gone', target };
    }
    const caller = await callerTerminal(port, listing, ctx.callerPaneId);
    const [judged] = await judgeAll(port, listing, [live], ctx, caller);
    if (!judged) return { kind: 'gone', target };
    if (judged.verdict.kind === 'keep') return { kind: 'skipped', target, reason: judged.verdict.reason };
    return close(target, [live.pane_id], () => port.closePane(live.pane_id));
  });
}

/** Rechecks a planned workspace (same panes, every one still qualifies), then closes it whole. */
export function pruneWorkspace(
  port: TerminalPort,
  entry: Pick<WorkspaceEntry, 'workspace' | 'panes'>,
  ctx: PaneContext,
): Promise<Closure> {
  const target = entry.workspace;
  return recheck(port, target, async (listing) => {
    if (!listing.workspaces.some((workspace) => workspace.workspace_id === target))
      return { kind: 'gone', target };
    const live = listing.panes.filter((pane) => pane.workspace_id === target);
    for (const planned of entry.panes) {
      const other = live.find(
        (pane) => pane.pane_id === planned.pane && pane.terminal_id !== planned.terminal_id,
      );
      if (other) return { kind: 'failed', target, reason: changedTerminal(other, planned.terminal_id) };
    }
    const plannedTerminals = new Set(entry.panes.map((pane) => pane.terminal_id));
    const added = live.find((pane) => !plannedTerminals.has(pane.terminal_id));
    if (added)
      return { kind: 'skipped', target, reason: `pane ${added.pane_id} opened in it after the plan` };
    const caller = await callerTerminal(port, listing, ctx.callerPaneId);
    const judged = await judgeAll(port, listing, live, ctx, caller);
    if (judged.length !== live.length)
      return { kind: 'skipped', target, reason: 'a pane of it closed during the recheck' };
    const facts = workspaceFacts(listing, undefined).filter((workspace) => workspace.workspace === target);
    const [plan] = workspaceVerdicts(facts, judged).workspaces;
    if (!plan) return { kind: 'gone', target };
    if (plan.verdict.kind === 'keep') return { kind: 'skipped', target, reason: plan.verdict.reason };
    return close(
      target,
      live.map((pane) => pane.pane_id),
      () => port.closeWorkspace(target),
    );
  });
}

/** Decides a planned closure against the live listing; an unreadable listing fails it. */
async function recheck(
  port: TerminalPort,
  target: string,
  decide: (listing: Listing) => Promise<Closure>,
): Promise<Closure> {
  const read = await attempt(() => port.listAll());
  if (!read.ok) return { kind: 'failed', target, reason: `cannot read Herdr: ${read.why}` };
  return decide(read.value);
}

/**
 * A terminal call's value, or why it failed: `gone` when its pane or workspace no longer exists.
 * Only a TerminalError is an answer; anything else is a bug and throws.
 */
async function attempt<T>(
  run: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; gone: boolean; why: string }> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (!(error instanceof TerminalError)) throw error;
    const gone = isTerminalError(error, 'pane_not_found') || isTerminalError(error, 'workspace_not_found');
    return { ok: false, gone, why: messageOf(error) };
  }
}

async function close(target: string, panes: string[], run: () => Promise<void>): Promise<Closure> {
  const done = await attempt(run);
  if (done.ok) return { kind: 'closed', target, panes };
  if (done.gone) return { kind: 'gone', target };
  return { kind: 'failed', target, reason: `close failed: ${done.why}` };
}

function changedTerminal(pane: Pane, planned: string): string {
  return `identity changed: pane ${pane.pane_id} now holds terminal ${pane.terminal_id}, not ${planned}`;
}

export type WorktreePanes =
  /** A pane that works in it (or in the workspace that shows it) is busy: the worktree stays. */
  | { kind: 'busy'; reason: string }
  /** Closes them after the teardown; throws when one got busy meanwhile. Returns the closed pane ids. */
  | { kind: 'ready'; close: () => Promise<string[]> };

interface Found {
  workspace: string | null;
  panes: ReadPane[];
  busy: string | null;
}

/** The owners' records, read again at each check: an owner's pane keeps the worktree it works in. */
export type OwnerContext = () => Promise<Pick<PaneContext, 'owners' | 'inboxes'>>;

export async function worktreePanes(
  port: TerminalPort,
  path: string,
  callerPaneId: string | null,
  owners?: OwnerContext,
): Promise<WorktreePanes> {
  const first = await find(port, path, callerPaneId, owners);
  if (first.busy !== null) return { kind: 'busy', reason: first.busy };
  return {
    kind: 'ready',
    close: async () => {
      const now = await find(port, path, callerPaneId, owners);
      if (now.busy !== null) throw new DogsledError(`kept after its teardown: ${now.busy}`);
      const closed: string[] = [];
      if (now.workspace !== null) {
        const own = now.panes.filter((pane) => pane.info.workspace_id === now.workspace);
        if (await closing(() => port.closeWorkspace(now.workspace as string))) {
          closed.push(...own.map((pane) => pane.info.pane_id));
        }
      }
      for (const pane of now.panes) {
        if (pane.info.workspace_id === now.workspace) continue;
        if (await closing(() => port.closePane(pane.info.pane_id))) closed.push(pane.info.pane_id);
      }
      return closed;
    },
  };
}

/** Runs a close; false when the target was already gone. */
export async function closing(run: () => Promise<void>): Promise<boolean> {
  const done = await attempt(run);
  if (done.ok || done.gone) return done.ok;
  throw new DogsledError(`cannot close its Herdr panes: ${done.why}`);
}

async function find(
  port: TerminalPort,
  path: string,
  callerPaneId: string | null,
  owners: OwnerContext | undefined,
): Promise<Found> {
  const read = await attempt(() => port.listAll());
  if (!read.ok) throw new DogsledError(`cannot read Herdr's panes: ${read.why}`);
  const listing = read.value;
  const checkout = await realOrSame(path);
  let workspace: string | null = null;
  for (const candidate of listing.workspaces) {
    if (candidate.worktree && (await realOrSame(candidate.worktree.checkout_path)) === checkout) {
      workspace = candidate.workspace_id;
    }
  }
  const inside = async (dir: string | undefined): Promise<boolean> =>
    dir !== undefined && contains(checkout, await realOrSame(dir));
  const chosen: Listing['panes'] = [];
  for (const pane of listing.panes) {
    if (pane.workspace_id === workspace || (await inside(pane.cwd)) || (await inside(pane.foreground_cwd))) {
      chosen.push(pane);
    }
  }
  const panes = await readPanes(port, { ...listing, panes: chosen });
  const callerTerminalId = await callerTerminal(port, listing, callerPaneId);
  const ownerOf = owners === undefined ? undefined : await ownerFactsOf(port, listing, await owners());
  for (const pane of panes) {
    if (pane.info.pane_id === callerPaneId || pane.info.terminal_id === callerTerminalId) {
      return { workspace, panes, busy: `the caller's pane ${pane.info.pane_id} works in it` };
    }
    const activity = paneActivity(pane.hold);
    if (activity !== null) return { workspace, panes, busy: `pane ${pane.info.pane_id} ${activity}` };
    const owner = ownerOf === undefined ? null : ownerKeep(ownerOf(pane.info.terminal_id));
    if (owner !== null) return { workspace, panes, busy: `pane ${pane.info.pane_id} stays: ${owner}` };
  }
  return { workspace, panes, busy: null };
}
