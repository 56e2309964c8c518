// The life of a launch record (launches/<id>.json) and when it is final, which is what the pane rule
// asks of a launch ("an empty shell closes when ... its launch is final"). `preparing` and `unknown`
// are never final: Herdr may have typed the line, so the pane is kept for the next try to reconcile.

import type { PaneRecord } from '../cleanup/pane-rule.js';

export const LAUNCH_STATES = ['preparing', 'started', 'refused', 'failed', 'unknown'] as const;
export type LaunchState = (typeof LAUNCH_STATES)[number];

/**
 * started: the agent ran (an empty shell left behind means it exited); refused: Herdr refused before
 * typing anything; failed: the last try failed and the ticket failed with it.
 */
const FINAL: ReadonlySet<LaunchState> = new Set(['started', 'refused', 'failed']);

export function launchIsFinal(state: LaunchState): boolean {
  return FINAL.has(state);
}

/** The launch as the pane rule sees it, for the pane it names; null while it names no terminal. */
export function launchPaneRecord(launch: {
  id: string;
  state: LaunchState;
  terminal_id: string | null;
}): { terminal: string; record: PaneRecord } | null {
  if (launch.terminal_id === null) return null;
  return {
    terminal: launch.terminal_id,
    record: { kind: 'launch', id: launch.id, finished: launchIsFinal(launch.state) },
  };
}

/** A profile's role wins; without one, a child with its own branch writes and any other reads. */
export function childRole(profileRole: 'reader' | 'writer' | null, hasBranch: boolean): 'reader' | 'writer' {
  return profileRole ?? (hasBranch ? 'writer' : 'reader');
}
