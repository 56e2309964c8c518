// The watchdog rule (spec, "Stalls and check-ins"): when an owner gets a check-in, and which stalled
// top-level panes get a Herdr notification. A check-in goes only to an idle or done owner with an
// inbox reader; it is due on a new stall of one of its children, a completed job, or 30 minutes
// without a check-in or lifecycle event. Transcript writes are no lifecycle event. Pure: the
// worker gathers the facts and watchdog.json, and writes what these functions decide.

import type { WatchdogOwner, WatchdogState } from './watchdog-types.js';

/** The owner's service looks every minute. */
export const WATCHDOG_PACE_MS = 60_000;
/** Open work with nothing new gets a check-in this long after the last check-in or lifecycle event. */
export const CHECK_IN_AFTER_MS = 30 * 60_000;
/**
 * Job-completion events (delivered or not) are forgotten this long after the job ended: job records
 * and their logs go after a day, so a forgotten event can never be seen again and repeated.
 */
export const EVENT_RETENTION_MS = 2 * 24 * 3_600_000;

/** Owners in these states may be interrupted; working and blocked owners never are. */
const CHECK_IN_STATES = new Set(['idle', 'done']);

/** One open child of an owner, as the note shows it. */
export interface ChildFacts {
  item: string;
  kind: 'agent' | 'job';
  /** Where an agent child runs (for its plain pane text); null for a job or an unseen pane. */
  pane: string | null;
  /** The child's name, pane or job id. */
  label: string;
  host: string;
  /** An agent's Herdr state; `running` for a job; `not seen` for a pane missing from the snapshot. */
  state: string;
  /** Since when it is in that state (the item's creation when nothing better is known). */
  since_ms: number;
  created_ms: number;
  transcript_modified: number | null;
  stalled_since_ms: number | null;
  /** Latest tool call or message (known transcripts) or plain pane text: untrusted, raw. */
  activity: string | null;
  /** A job's command, for the note. */
  command: readonly string[] | null;
}

/** A job that ended, waiting for its owner's next check-in (it outlives the job's item). */
export interface JobEvent {
  job: string;
  owner: string;
  command: readonly string[];
  ended_ms: number;
  exit_code: number | null;
  signal: string | null;
  reason: string | null;
  /** The last log lines, captured when the end was seen: untrusted, raw. */
  log: readonly string[];
}

export interface OwnerFacts {
  owner: string;
  /** The owner pane's agent state; null when the owner is no agent pane in the snapshot. */
  state: string | null;
  /** Whether the owner's terminal has an inbox reader. */
  reader: boolean;
  children: readonly ChildFacts[];
  /** The latest lifecycle event of its work: an item opened or closed, a child changed state. */
  lifecycle_ms: number;
  /** Orphaned children on this host (agent work), listed in every check-in here. */
  orphans: readonly string[];
}

export interface CheckInPlan {
  owner: string;
  /** Why it is due: `stall`, `job`, `quiet` (30 minutes), or `pending` (decided before a restart). */
  reasons: string[];
  /** Stalled children this check-in reports, by item: their stall episode's start. */
  stalls: Record<string, number>;
  /** Job events this check-in delivers. */
  jobs: string[];
}

/** The stall episodes a check-in has not reported yet. */
function newStalls(facts: OwnerFacts, memory: WatchdogOwner | undefined): Record<string, number> {
  const stalls: Record<string, number> = {};
  for (const child of facts.children) {
    if (child.stalled_since_ms === null) continue;
    if (memory?.stalls[child.item] === child.stalled_since_ms) continue;
    stalls[child.item] = child.stalled_since_ms;
  }
  return stalls;
}

/** Pending job events of `owner`, oldest first. */
export function pendingJobs(state: WatchdogState, owner: string): string[] {
  return Object.entries(state.events)
    .filter(([, event]) => event.owner === owner && event.delivered_ms === null)
    .sort(([a, x], [b, y]) => x.ended_ms - y.ended_ms || (a < b ? -1 : 1))
    .map(([job]) => job);
}

/**
 * Whether `facts.owner` gets a check-in now, and what it covers. A due check-in that cannot be
 * delivered (the owner works, is blocked or has no reader) is simply not planned: the facts that
 * made it due are still there next minute.
 */
export function checkInPlan(facts: OwnerFacts, state: WatchdogState, now: number): CheckInPlan | undefined {
  if (!facts.reader || facts.state === null || !CHECK_IN_STATES.has(facts.state)) return undefined;
  const memory = state.owners[facts.owner];
  const jobs = pendingJobs(state, facts.owner);
  const stalls = newStalls(facts, memory);
  const reasons: string[] = [];
  if (Object.keys(stalls).length > 0) reasons.push('stall');
  if (jobs.length > 0) reasons.push('job');
  if (facts.children.length > 0) {
    const quietSince = Math.max(
      memory?.last_check_in_ms ?? -Infinity,
      facts.lifecycle_ms,
      memory?.last_event_ms ?? -Infinity,
    );
    if (now - quietSince >= CHECK_IN_AFTER_MS) reasons.push('quiet');
  }
  if (reasons.length === 0) return undefined;
  return { owner: facts.owner, reasons, stalls, jobs };
}

/** Stall notifications: top-level panes stalled in an episode not yet notified. */
export interface StalledPane {
  pane: string;
  terminal_id: string;
  name: string | null;
  stalled_since_ms: number;
}

export function notificationsDue<P extends StalledPane>(panes: readonly P[], state: WatchdogState): P[] {
  return panes.filter((pane) => state.notified[pane.terminal_id] !== pane.stalled_since_ms);
}

/** The notification record after this tick: episodes still stalled keep their entry, others go. */
export function keptNotifications(
  notified: Readonly<Record<string, number>>,
  stalled: readonly { terminal_id: string; stalled_since_ms: number }[],
): Record<string, number> {
  const kept: Record<string, number> = {};
  for (const pane of stalled) {
    const seen = notified[pane.terminal_id];
    if (seen === pane.stalled_since_ms) kept[pane.terminal_id] = seen;
  }
  return kept;
}

/** Events older than the retention go, delivered or not. */
export function pruneEvents(state: WatchdogState, now: number): WatchdogState['events'] {
  const events: WatchdogState['events'] = {};
  for (const [job, event] of Object.entries(state.events)) {
    if (now - event.ended_ms <= EVENT_RETENTION_MS) events[job] = event;
  }
  return events;
}

export function emptyWatchdog(now: number): WatchdogState {
  return { version: 1, since_ms: now, owners: {}, events: {}, notified: {} };
}
