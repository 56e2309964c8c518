// The terminal side of one doctor or prune run, read once: Herdr's listing and each pane's process
// facts, the holds they make with the process table (core/holds.ts), the directories that join the
// repository survey, and a view of the port that answers the panes section from the same reads.
// Without Herdr there are no panes; a Herdr that should be there but cannot be read holds everything.

import { realpath } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { type HoldPane, type HoldPanes, holdsFor } from '../../core/cleanup/holds.js';
import type { ProcessInfo } from '../../core/cleanup/pane-processes.js';
import { classifyForeground, promptState } from '../../core/cleanup/pane-rule.js';
import { messageOf } from '../../core/common/errors.js';
import { mapLimited } from '../../probe/map-limited.js';
import { type ChildReader, readChildren } from '../../probe/shell-panes.js';
import { readProcessTable } from '../../process/process-table.js';
import type { ProcessIO, StateIO } from '../../state/io.js';
import { listJobRecords } from '../../state/records/job-records.js';
import { readPaneWatch } from '../../state/records/pane-watch-file.js';
import { callerPane, herdrExpected } from '../../terminal/herdr/herdr-env.js';
import { openTerminal } from '../../terminal/open.js';
import type { TerminalPort } from '../../terminal/port.js';
import type { Listing, Pane } from '../../terminal/port-records.js';
import { isTerminalError, TerminalError } from '../../terminal/terminal-errors.js';
import { agentPaneFacts } from '../agent-records.js';
import type { HoldSource } from '../survey.js';
import type { PaneContext } from './judge.js';

/** One pane as read for this run: Herdr's record, its process facts, and what the holds see. */
export interface ReadPane {
  info: Pane;
  /** pane.process_info, or the failure that kept it unread. */
  process: { ok: true; info: ProcessInfo } | { ok: false; error: TerminalError };
  hold: HoldPane;
}

export interface HerdrFacts {
  /** The port as this run read it: listing and process facts come from the reads below. */
  port: TerminalPort;
  /** The port itself, for closures and their rechecks. */
  live: TerminalPort;
  listing: Listing;
  panes: ReadPane[];
  /** HERDR_PANE_ID of the caller, else null. */
  callerPaneId: string | null;
  /** Workspaces that show a checkout (Herdr's worktree workspaces), paths resolved. */
  shows: Array<{ workspace: string; checkout: string }>;
  /** Holds that read Herdr again on every call: prune's rechecks. */
  liveHolds: HoldSource;
}

export interface TerminalFacts {
  /** Herdr's side when it answered, else null. */
  herdr: HerdrFacts | null;
  /** Why Herdr is not used, for `needs Herdr or tmux (...)`; '' when it is. */
  why: string;
  /** Set when Herdr should be there but could not be read: a warning, and every checkout is held. */
  error: string | null;
  holds: HoldSource;
  paneRootPids: number[];
  discoveredPaths: string[];
  workspaceCheckouts: string[];
}

export interface TerminalFactsIO extends Pick<ProcessIO, 'env' | 'home' | 'warn'> {
  children?: ChildReader;
}

export async function gatherTerminalFacts(options: TerminalFactsIO): Promise<TerminalFacts> {
  const { env } = options;
  const caller = callerPane(env);
  const children = options.children ?? readChildren;
  const port = await openTerminal({ env, home: options.home, warn: options.warn });
  const without = (why: string, error: string | null): TerminalFacts => {
    const panes: HoldPanes = error === null ? { kind: 'absent' } : { kind: 'unreadable', error };
    return {
      herdr: null,
      why,
      error,
      holds: holdSource(async () => panes, caller),
      paneRootPids: [],
      discoveredPaths: [],
      workspaceCheckouts: [],
    };
  };
  if (port.kind === 'headless') {
    return (await herdrExpected(env, options.home)) ? without(port.why, port.why) : without(port.why, null);
  }
  let listing: Listing;
  try {
    listing = await port.listAll();
  } catch (error) {
    if (!isTerminalError(error)) throw error;
    return without(messageOf(error), messageOf(error));
  }
  const panes = await readPanes(port, listing, children);
  const shows = await showsOf(listing);
  const current: HoldPanes = { kind: 'read', panes: panes.map((pane) => pane.hold), workspaces: shows };
  const live = async (): Promise<HoldPanes> => {
    try {
      const now = await port.listAll();
      const read = await readPanes(port, now, children);
      return { kind: 'read', panes: read.map((pane) => pane.hold), workspaces: await showsOf(now) };
    } catch (error) {
      if (!isTerminalError(error)) throw error;
      return { kind: 'unreadable', error: messageOf(error) };
    }
  };
  const discovered = new Set<string>();
  for (const pane of listing.panes) {
    for (const dir of [pane.foreground_cwd, pane.cwd]) if (dir) discovered.add(undeleted(dir));
  }
  for (const workspace of listing.workspaces) {
    if (!workspace.worktree) continue;
    discovered.add(workspace.worktree.checkout_path);
    discovered.add(workspace.worktree.repo_root);
  }
  return {
    herdr: {
      port: surveyView(port, listing, panes),
      live: port,
      listing,
      panes,
      callerPaneId: caller,
      shows,
      liveHolds: holdSource(live, caller),
    },
    why: '',
    error: null,
    holds: holdSource(async () => current, caller),
    paneRootPids: panes.flatMap((pane) => (pane.hold.shellPid === null ? [] : [pane.hold.shellPid])),
    discoveredPaths: [...discovered],
    // As Herdr names them and resolved, so either spelling of a checkout matches.
    workspaceCheckouts: [
      ...new Set([
        ...listing.workspaces.flatMap((workspace) => workspace.worktree?.checkout_path ?? []),
        ...shows.map((shown) => shown.checkout),
      ]),
    ],
  };
}

/** The pane rule's context as it is now: jobs and the service's pane-watch are read again. */
export async function paneContext(io: StateIO, callerPaneId: string | null): Promise<PaneContext> {
  const [jobs, watch, agents] = await Promise.all([
    listJobRecords(io.paths),
    readPaneWatch(io),
    agentPaneFacts(io),
  ]);
  return { callerPaneId, jobs: jobs.records, watch, now: io.now(), ...agents };
}

/** Each pane's process facts (at most one read per CPU at a time); a pane closed meanwhile is left out. */
export async function readPanes(
  port: TerminalPort,
  listing: Listing,
  children: ChildReader = readChildren,
): Promise<ReadPane[]> {
  const agents = new Map(listing.agents.map((agent) => [agent.terminal_id, agent]));
  const read = await mapLimited(listing.panes, availableParallelism(), async (pane) => {
    const agent = agents.get(pane.terminal_id);
    let facts: ReadPane['process'];
    try {
      facts = { ok: true, info: await port.processInfo(pane.pane_id) };
    } catch (error) {
      if (isTerminalError(error, 'pane_not_found')) return null;
      if (!(error instanceof TerminalError)) throw error;
      facts = { ok: false, error };
    }
    const isAgent = pane.agent !== undefined || agent !== undefined;
    let prompt: HoldPane['prompt'] = { kind: 'empty' };
    if (!isAgent) {
      if (!facts.ok) {
        prompt = { kind: 'unknown', reason: `its processes cannot be read (${messageOf(facts.error)})` };
      } else {
        const foreground = classifyForeground(facts.info);
        const kids = foreground.kind === 'shell' ? await children(foreground.pid) : null;
        const state = promptState(foreground, kids);
        prompt =
          state.kind === 'empty'
            ? { kind: 'empty' }
            : state.kind === 'running'
              ? { kind: 'running', program: state.program }
              : { kind: 'unknown', reason: state.reason };
      }
    }
    const dirs = [pane.foreground_cwd, pane.cwd, agent?.foreground_cwd, agent?.cwd];
    if (facts.ok) dirs.push(...facts.info.foreground_processes.map((member) => member.cwd));
    const hold: HoldPane = {
      pane: pane.pane_id,
      workspace: pane.workspace_id,
      cwds: [...new Set(dirs.filter((dir): dir is string => typeof dir === 'string' && dir !== ''))],
      agent: isAgent ? { kind: pane.agent ?? agent?.agent ?? null, name: agent?.name ?? null } : null,
      prompt,
      shellPid: facts.ok ? (facts.info.shell_pid ?? null) : null,
    };
    return { info: pane, process: facts, hold } satisfies ReadPane;
  });
  return read.filter((pane): pane is ReadPane => pane !== null);
}

async function showsOf(listing: Listing): Promise<Array<{ workspace: string; checkout: string }>> {
  const shows: Array<{ workspace: string; checkout: string }> = [];
  for (const workspace of listing.workspaces) {
    if (workspace.worktree) {
      shows.push({
        workspace: workspace.workspace_id,
        checkout: await realOrSame(workspace.worktree.checkout_path),
      });
    }
  }
  return shows;
}

/** Holds from the panes `readHoldPanes` gives and the process table as it is at each call. */
function holdSource(readHoldPanes: () => Promise<HoldPanes>, callerPane: string | null): HoldSource {
  return async (paths, table) => {
    if (paths.length === 0) return new Map();
    const [panes, processes, real] = await Promise.all([
      readHoldPanes(),
      table ?? readProcessTable(),
      Promise.all(paths.map(realOrSame)),
    ]);
    const held = holdsFor({ checkouts: real, panes, processes, ownPid: process.pid, callerPane });
    return new Map(paths.map((path, index) => [path, held.get(real[index] as string) ?? []]));
  };
}

/**
 * The port as this run read it: the panes section judges the same listing and process facts the
 * holds were made from, so doctor reads Herdr once. Every other call goes to the port itself.
 */
function surveyView(port: TerminalPort, listing: Listing, panes: readonly ReadPane[]): TerminalPort {
  const facts = new Map(panes.map((pane) => [pane.info.pane_id, pane.process]));
  const view = Object.create(port) as TerminalPort;
  return Object.assign(view, {
    listAll: async () => listing,
    processInfo: async (paneId: string): Promise<ProcessInfo> => {
      const known = facts.get(paneId);
      if (known === undefined) return port.processInfo(paneId);
      if (known.ok) return known.info;
      throw known.error;
    },
  });
}

const DELETED = ' (deleted)';

function undeleted(path: string): string {
  return path.endsWith(DELETED) ? path.slice(0, -DELETED.length) : path;
}

export async function realOrSame(path: string): Promise<string> {
  const bare = undeleted(path);
  try {
    return await realpath(bare);
  } catch {
    return resolve(bare);
  }
}
