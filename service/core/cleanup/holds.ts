// The live holds on checkouts that prune, the sweep and doctor share (spec, "Cleanup"): Herdr panes
// and processes that work in a checkout, and the evidence that cannot be read. Pure: the caller reads
// the panes, their process facts and the process table. Work is attributed to the deepest checkout
// that contains it. Reasons name panes and programs, never a program's arguments.

import { stripEscapes } from '../text/clean.js';
import type { Hold } from './loss-types.js';
import { owningCheckout } from './target-rule.js';

/** One Herdr pane as the holds see it. */
export interface HoldPane {
  pane: string;
  workspace: string;
  /** Where it works: its foreground's and its shell's directories (either may be unknown). */
  cwds: readonly string[];
  /** Set for an agent pane; `kind` is null while its launch is pending. */
  agent: { kind: string | null; name: string | null } | null;
  /** A shell pane's fresh check (not read for agent panes). */
  prompt: { kind: 'empty' } | { kind: 'running'; program: string } | { kind: 'unknown'; reason: string };
  /** The pane's root process, when Herdr reported it. */
  shellPid: number | null;
}

/** A Herdr workspace that shows a checkout (Herdr's worktree workspaces). */
export interface HoldWorkspace {
  workspace: string;
  checkout: string;
}

export interface HoldProcess {
  pid: number;
  ppid: number;
  /** The program name (comm); untrusted. */
  comm: string;
  cwd?: string;
}

export type HoldPanes =
  | { kind: 'read'; panes: readonly HoldPane[]; workspaces: readonly HoldWorkspace[] }
  /** Herdr runs but could not be read: live panes cannot be ruled out anywhere. */
  | { kind: 'unreadable'; error: string }
  /** No Herdr on this host: no panes. */
  | { kind: 'absent' };

export interface HoldFacts {
  /** Absolute, normalized checkout paths (resolved the same way as the directories below). */
  checkouts: readonly string[];
  panes: HoldPanes;
  processes: { ok: true; processes: readonly HoldProcess[] } | { ok: false; error: string };
  /** This process: it, its ancestors (the caller, held on its own) and its children are no holds. */
  ownPid: number;
  /** HERDR_PANE_ID of the caller, when it runs in Herdr. */
  callerPane: string | null;
}

/** Per checkout, at most this many processes are named; the rest are counted in one more hold. */
export const NAMED_PROCESSES = 5;

const DELETED = ' (deleted)';

export function holdsFor(facts: HoldFacts): Map<string, Hold[]> {
  const checkouts = facts.checkouts.map(normal);
  const held = new Map<string, Hold[]>(checkouts.map((checkout) => [checkout, []]));
  const add = (checkout: string | null, hold: Hold): void => {
    if (checkout === null) return;
    const holds = held.get(checkout);
    if (holds && !holds.some((known) => known.reason === hold.reason)) holds.push(hold);
  };
  const ownerOf = (dir: string): string | null => owningCheckout(normal(dir), checkouts);

  const table = facts.processes.ok ? facts.processes.processes : [];
  const parents = new Map(table.map((proc) => [proc.pid, proc.ppid]));
  const ancestors = chain(facts.ownPid, parents);
  const panes = facts.panes.kind === 'read' ? facts.panes.panes : [];
  const isCaller = (pane: HoldPane): boolean =>
    pane.pane === facts.callerPane || (pane.shellPid !== null && ancestors.has(pane.shellPid));

  if (facts.panes.kind === 'read') {
    const shown = new Map<string, string[]>();
    for (const workspace of facts.panes.workspaces) {
      const checkout = checkouts.find((path) => path === normal(workspace.checkout));
      if (checkout) shown.set(workspace.workspace, [...(shown.get(workspace.workspace) ?? []), checkout]);
    }
    for (const pane of panes) {
      const activity = isCaller(pane) ? null : paneActivity(pane);
      for (const dir of pane.cwds) {
        const checkout = ownerOf(dir);
        if (isCaller(pane))
          add(checkout, { kind: 'caller', reason: `the caller's pane ${pane.pane} works in it` });
        else if (activity) add(checkout, { kind: 'pane', reason: `pane ${pane.pane} ${activity}` });
      }
      // Closing a worktree closes the workspace that shows it, with every pane in it.
      for (const checkout of shown.get(pane.workspace) ?? []) {
        if (isCaller(pane)) {
          add(checkout, {
            kind: 'caller',
            reason: `the caller's pane ${pane.pane} is in the workspace that shows it`,
          });
        } else if (activity) {
          add(checkout, {
            kind: 'pane',
            reason: `pane ${pane.pane} ${activity}, in the workspace that shows it`,
          });
        }
      }
    }
  }

  if (facts.panes.kind === 'unreadable') {
    for (const checkout of checkouts) {
      add(checkout, { kind: 'pane', reason: `Herdr panes could not be read: ${facts.panes.error}` });
    }
  }

  if (facts.processes.ok) {
    const ignored = ignoredProcesses(panes, parents, facts.ownPid, ancestors);
    const named = new Map<string, number>();
    const unnamed = new Map<string, number>();
    for (const proc of [...facts.processes.processes].sort((a, b) => a.pid - b.pid)) {
      if (proc.cwd === undefined || ignored(proc.pid)) continue;
      const checkout = ownerOf(proc.cwd);
      if (checkout === null) continue;
      const count = named.get(checkout) ?? 0;
      if (count >= NAMED_PROCESSES) {
        unnamed.set(checkout, (unnamed.get(checkout) ?? 0) + 1);
        continue;
      }
      named.set(checkout, count + 1);
      const program = stripEscapes(proc.comm).trim() || '?';
      add(checkout, {
        kind: 'process',
        reason: `process ${program} (pid ${proc.pid}) works in ${stripDeleted(proc.cwd)}`,
      });
    }
    for (const [checkout, count] of unnamed) {
      add(checkout, {
        kind: 'process',
        reason: `${count} more ${count === 1 ? 'process works' : 'processes work'} in ${checkout}`,
      });
    }
  } else {
    for (const checkout of checkouts) {
      add(checkout, {
        kind: 'process-table',
        reason: `processes working in it cannot be ruled out (${facts.processes.error})`,
      });
    }
  }

  return held;
}

/** What keeps a pane busy, or null for an idle shell (which holds nothing). */
export function paneActivity(pane: Pick<HoldPane, 'agent' | 'prompt'>): string | null {
  if (pane.agent) {
    if (pane.agent.kind === null) return 'has an agent launch pending';
    const name = pane.agent.name ? ` (${stripEscapes(pane.agent.name)})` : '';
    return `runs ${stripEscapes(pane.agent.kind)}${name}`;
  }
  if (pane.prompt.kind === 'running') return `runs ${stripEscapes(pane.prompt.program).trim() || '?'}`;
  if (pane.prompt.kind === 'unknown') return `cannot be checked: ${pane.prompt.reason}`;
  return null;
}

/**
 * Processes that are no holds of their own: this process, its ancestors and its children (git and
 * teardown runs); the whole process tree of an agent pane (the pane holds); the root shell of an
 * idle shell pane; and the processes that host the panes (the terminal server and what started it).
 * A background job an idle-looking shell started is none of these, so it holds.
 */
function ignoredProcesses(
  panes: readonly HoldPane[],
  parents: ReadonlyMap<number, number>,
  ownPid: number,
  ancestors: ReadonlySet<number>,
): (pid: number) => boolean {
  const idleShells = new Set<number>();
  const treeRoots = new Set<number>([ownPid]);
  const hosts = new Set<number>();
  for (const pane of panes) {
    if (pane.shellPid === null) continue;
    if (pane.agent) treeRoots.add(pane.shellPid);
    else if (pane.prompt.kind === 'empty') idleShells.add(pane.shellPid);
    for (const host of chain(parents.get(pane.shellPid) ?? 0, parents)) hosts.add(host);
  }
  return (pid) => {
    if (pid === ownPid || ancestors.has(pid) || idleShells.has(pid) || hosts.has(pid)) return true;
    for (const above of chain(pid, parents)) if (treeRoots.has(above)) return true;
    return false;
  };
}

/** `pid` and its ancestors as the table knows them; a loop or a missing parent ends the walk. */
function chain(pid: number, parents: ReadonlyMap<number, number>): Set<number> {
  const seen = new Set<number>();
  for (let at: number | undefined = pid; at !== undefined && at > 0 && !seen.has(at); at = parents.get(at)) {
    seen.add(at);
  }
  return seen;
}

function stripDeleted(path: string): string {
  return path.endsWith(DELETED) ? path.slice(0, -DELETED.length) : path;
}

/** Linux shows a removed working directory as "<path> (deleted)"; trailing slashes go. */
function normal(path: string): string {
  const bare = stripDeleted(path);
  return bare.length > 1 ? bare.replace(/\/+$/, '') || '/' : bare;
}
