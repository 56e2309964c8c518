// Observes Herdr panes for the pane rule: each tick, every pane without an agent gets a fresh
// process check (is its shell waiting at an empty prompt?) and every agent pane's state is read from
// the listing; the clocks are carried on by terminal id (core/pane-watch-carry.ts). Checks run on at most
// one worker per CPU, and one pane's failed check resets only that pane's clock.

import { availableParallelism } from 'node:os';
import { classifyForeground, type PromptState, promptState } from '../core/cleanup/pane-rule.js';
import {
  carryWatch,
  type PaneSample,
  WATCH_MAX_GAP_MS,
  type WatchEntry,
  type WatchMap,
} from '../core/cleanup/pane-watch-carry.js';
import { messageOf } from '../core/common/errors.js';
import { childNames } from '../process/process-table.js';
import type { TerminalPort } from '../terminal/port.js';
import type { Listing, Pane } from '../terminal/port-records.js';
import { isTerminalError } from '../terminal/terminal-errors.js';
import { mapLimited } from './map-limited.js';

/** The program names of a process's direct children, or null when they cannot be read. */
export type ChildReader = (pid: number) => Promise<string[] | null>;

export interface PaneProbe {
  state: PromptState;
  /** The root process's working directory as the process table says it, else null. */
  cwd: string | null;
}

/**
 * The fresh check of one pane: its foreground, then (for a shell alone in the foreground) the
 * shell's children, since a background job it started keeps the pane. Terminal failures propagate:
 * `pane_not_found` means the pane is gone.
 */
export async function probePrompt(
  port: TerminalPort,
  paneId: string,
  children: ChildReader = readChildren,
): Promise<PaneProbe> {
  const info = await port.processInfo(paneId);
  const root = info.foreground_processes.find((member) => member.pid === info.shell_pid);
  const foreground = classifyForeground(info);
  const kids = foreground.kind === 'shell' ? await children(foreground.pid) : null;
  return { state: promptState(foreground, kids), cwd: root?.cwd ?? null };
}

export interface ShellPaneOptions {
  port: TerminalPort;
  /** This tick's listing when the caller already took one; else one is taken. */
  listing?: Listing;
  /** The last tick's map (pane-watch.json's entries). */
  previous: WatchMap;
  now: number;
  maxGapMs?: number;
  /** Parallel process checks; default one per available CPU. */
  width?: number;
  children?: ChildReader;
}

export interface ShellPaneObservation {
  /** The new map to write; on a failed listing it is `previous` unchanged, left to age out. */
  watch: Record<string, WatchEntry>;
  errors: string[];
}

export async function observeShellPanes(options: ShellPaneOptions): Promise<ShellPaneObservation> {
  const { port, previous, now } = options;
  let listing: Listing;
  try {
    listing = options.listing ?? (await port.listAll());
  } catch (error) {
    return { watch: { ...previous }, errors: [`herdr: ${messageOf(error)}`] };
  }
  const errors: string[] = [];
  const agents = new Map(listing.agents.map((agent) => [agent.terminal_id, agent]));
  const width = options.width ?? availableParallelism();
  const children = options.children ?? readChildren;
  const samples = await mapLimited(listing.panes, width, async (pane): Promise<PaneSample | null> => {
    const agent = agents.get(pane.terminal_id);
    if (pane.agent !== undefined || agent !== undefined) {
      const status = agent?.agent_status ?? pane.agent_status;
      return agentSample(pane, status === 'idle' || status === 'done');
    }
    try {
      const probe = await probePrompt(port, pane.pane_id, children);
      return shellSample(pane, probe.state.kind === 'empty');
    } catch (error) {
      // Closed since the listing: its clock goes with it.
      if (isTerminalError(error, 'pane_not_found')) return null;
      errors.push(`pane ${pane.pane_id}: ${messageOf(error)}`);
      return shellSample(pane, false);
    }
  });
  const taken = samples.filter((sample): sample is PaneSample => sample !== null);
  return { watch: carryWatch(previous, taken, now, options.maxGapMs ?? WATCH_MAX_GAP_MS), errors };
}

function agentSample(pane: Pane, resting: boolean): PaneSample {
  return { terminal_id: pane.terminal_id, pane: pane.pane_id, kind: 'agent', resting };
}

function shellSample(pane: Pane, empty: boolean): PaneSample {
  return { terminal_id: pane.terminal_id, pane: pane.pane_id, kind: 'shell', empty };
}

/** Children from the process table (/proc on Linux, a `ps` listing on macOS). */
export const readChildren: ChildReader = (pid) => childNames(pid);
