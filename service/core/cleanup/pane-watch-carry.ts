// The service's memory of each pane between ticks, keyed by terminal id (a pane id is only a
// location and changes when Herdr moves the pane). A shell's clock counts how long it has sat at an
// empty prompt, an agent's how long it has been idle or done; any other sample, a missed tick longer
// than the allowed gap, or a vanished terminal resets it, so "continuously" means every sample agreed.

/** What the service remembers about one terminal (pane-watch.json, one entry per terminal id). */
export interface WatchEntry {
  /** The pane that showed the terminal at the last observation. */
  pane: string;
  /** Since when every sample saw a shell at an empty prompt; null when the last one did not. */
  empty_since_ms: number | null;
  /** Agents only: since when every sample saw the agent idle or done. */
  idle_since_ms?: number | null;
  observed_ms: number;
}

export type WatchMap = Readonly<Record<string, WatchEntry>>;

/** One tick's sample of one terminal. */
export type PaneSample =
  | { terminal_id: string; pane: string; kind: 'shell'; empty: boolean }
  | { terminal_id: string; pane: string; kind: 'agent'; resting: boolean };

/**
 * Longest time between two samples that still counts as watching continuously. Herdr reports no
 * activity time, so a command that ran between two samples is invisible; a gap this long (a stopped
 * service, a hung Herdr) is too much to vouch for, and the clock starts again.
 */
export const WATCH_MAX_GAP_MS = 5 * 60_000;

/** The next watch map: one entry per sampled terminal; terminals not sampled are forgotten. */
export function carryWatch(
  previous: WatchMap,
  samples: readonly PaneSample[],
  now: number,
  maxGapMs: number = WATCH_MAX_GAP_MS,
): Record<string, WatchEntry> {
  const next: Record<string, WatchEntry> = {};
  for (const sample of samples) {
    const before = previous[sample.terminal_id];
    const continuous = before !== undefined && isFresh(before, now, maxGapMs);
    if (sample.kind === 'shell') {
      const since = continuous ? before.empty_since_ms : null;
      next[sample.terminal_id] = {
        pane: sample.pane,
        empty_since_ms: sample.empty ? (since ?? now) : null,
        observed_ms: now,
      };
    } else {
      const since = continuous ? (before.idle_since_ms ?? null) : null;
      next[sample.terminal_id] = {
        pane: sample.pane,
        empty_since_ms: null,
        idle_since_ms: sample.resting ? (since ?? now) : null,
        observed_ms: now,
      };
    }
  }
  return next;
}

/** The entry was observed no more than `maxGapMs` before `now` (and not in the future). */
export function isFresh(entry: Pick<WatchEntry, 'observed_ms'>, now: number, maxGapMs: number): boolean {
  return entry.observed_ms <= now && now - entry.observed_ms <= maxGapMs;
}
