// The stall rule: a working or unknown agent stalls after ten minutes without a transcript change.
// Only the transcript's modification time counts, so screen redraws never reset the clock, and an
// agent without a readable transcript never stalls. Recovery (a change, or another state) clears it.

import { knobVariable } from '../common/test-knobs.js';

export const STALL_AFTER_MS = 10 * 60_000;

/** States in which silence means trouble; idle, done and blocked agents are waiting on purpose. */
const STALLABLE = new Set(['working', 'unknown']);

export function isStallable(state: string): boolean {
  return STALLABLE.has(state);
}

export interface StallObservation {
  state: string;
  /** null when the transcript is absent, ambiguous or unreadable. */
  transcript_modified: number | null;
}

export interface StallMemory {
  state: string;
  state_since_ms: number;
  transcript_modified: number | null;
  stalled_since_ms: number | null;
  /** When the agent last entered working or unknown from another state; kept across the two. */
  stallable_since_ms?: number | null;
}

export interface StallClock {
  state_since_ms: number;
  stalled_since_ms: number | null;
  stallable_since_ms: number | null;
}

/**
 * Carries a pane's clocks from the previous observation of the same terminal to this one.
 * The silence is measured from the later of the last transcript change and the moment the agent
 * entered a stallable state, so an agent that just started working is not already stalled.
 */
export function nextStallClock(
  previous: StallMemory | undefined,
  now: StallObservation,
  nowMs: number,
  stallAfterMs: number,
): StallClock {
  const state_since_ms = previous && previous.state === now.state ? previous.state_since_ms : nowMs;
  if (!isStallable(now.state)) return { state_since_ms, stalled_since_ms: null, stallable_since_ms: null };
  // A move between working and unknown keeps the clock running: both are stallable.
  const stallable_since_ms =
    previous && isStallable(previous.state)
      ? (previous.stallable_since_ms ?? previous.state_since_ms)
      : state_since_ms;
  const quiet = { state_since_ms, stalled_since_ms: null, stallable_since_ms };
  if (now.transcript_modified === null) return quiet;
  const quietSince = Math.max(now.transcript_modified, stallable_since_ms);
  if (nowMs - quietSince < stallAfterMs) return quiet;
  const unchanged = previous?.transcript_modified === now.transcript_modified;
  const stalled_since_ms =
    unchanged && previous?.stalled_since_ms != null ? previous.stalled_since_ms : quietSince + stallAfterMs;
  return { state_since_ms, stalled_since_ms, stallable_since_ms };
}

/** Parses the STALL_MS knob: a positive integer of milliseconds, else the ten-minute default. */
export function stallThreshold(raw: string | undefined): { ms: number; warning: string | null } {
  if (raw === undefined || raw === '') return { ms: STALL_AFTER_MS, warning: null };
  if (/^\d+$/.test(raw) && Number(raw) > 0) return { ms: Number(raw), warning: null };
  return {
    ms: STALL_AFTER_MS,
    warning: `${knobVariable('STALL_MS')} must be a positive number of milliseconds, not ${JSON.stringify(raw)}; using 10m`,
  };
}

/** The `$dogsled` pane token the sidebar shows for a stalled agent; cleared on recovery. */
export const STALL_TOKEN = { source: 'dogsled:stall', key: 'dogsled', value: 'stalled' } as const;

/**
 * Which panes need their stall token set (every tick while stalled, so a token that expired or a
 * restarted Herdr gets it back) and which need it cleared (recovered since the last tick).
 */
export function stallTokenChanges<
  P extends { pane: string; terminal_id: string; stalled_since_ms: number | null },
>(panes: readonly P[], marked: ReadonlySet<string>): { set: P[]; clear: P[]; marked: Set<string> } {
  const set = panes.filter((pane) => pane.stalled_since_ms !== null);
  const clear = panes.filter((pane) => pane.stalled_since_ms === null && marked.has(pane.terminal_id));
  return { set, clear, marked: new Set(set.map((pane) => pane.terminal_id)) };
}
