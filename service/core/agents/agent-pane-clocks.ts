// Agent panes as the snapshot publishes them: this tick's observation plus the clocks carried from
// the previous tick (state age and stall), keyed by terminal id because a pane id is only a
// location and changes when Herdr moves the pane. Also the live and active counts headroom uses.

import type { AgentPane } from './agent-pane-types.js';
import { nextStallClock, type StallMemory } from './stall.js';

/** Everything the service reads about an agent pane; the clocks are derived here. */
export type ObservedAgentPane = Omit<AgentPane, 'stalled_since_ms' | 'state_since_ms'>;

export type PaneMemory = ReadonlyMap<string, StallMemory>;

export interface ComposedPanes {
  panes: AgentPane[];
  /** What the next tick needs to carry the clocks on; terminals that vanished are dropped. */
  memory: Map<string, StallMemory>;
}

export function composeAgentPanes(
  observed: readonly ObservedAgentPane[],
  previous: PaneMemory,
  nowMs: number,
  stallAfterMs: number,
): ComposedPanes {
  const memory = new Map<string, StallMemory>();
  const panes = observed.map((pane): AgentPane => {
    const clock = nextStallClock(previous.get(pane.terminal_id), pane, nowMs, stallAfterMs);
    memory.set(pane.terminal_id, {
      state: pane.state,
      state_since_ms: clock.state_since_ms,
      transcript_modified: pane.transcript_modified,
      stalled_since_ms: clock.stalled_since_ms,
      stallable_since_ms: clock.stallable_since_ms,
    });
    return { ...pane, stalled_since_ms: clock.stalled_since_ms, state_since_ms: clock.state_since_ms };
  });
  return { panes, memory };
}

/** Rebuilds the clock memory from a published snapshot, so a restarted service keeps its clocks. */
export function memoryOf(panes: readonly AgentPane[]): Map<string, StallMemory> {
  return new Map(
    panes.map((pane) => [
      pane.terminal_id,
      {
        state: pane.state,
        state_since_ms: pane.state_since_ms,
        transcript_modified: pane.transcript_modified,
        stalled_since_ms: pane.stalled_since_ms,
      },
    ]),
  );
}

/** Idle and done agents wait for a person; every other live agent holds its demand on the host. */
const RESTING = new Set(['idle', 'done']);

export function agentCounts(panes: readonly Pick<AgentPane, 'state'>[]): { live: number; active: number } {
  return { live: panes.length, active: panes.filter((pane) => !RESTING.has(pane.state)).length };
}

export function stalledPanes<T extends Pick<AgentPane, 'stalled_since_ms'>>(panes: readonly T[]): T[] {
  return panes.filter((pane) => pane.stalled_since_ms !== null);
}
