// How a child's `herdr agent start` is retried (spec, "Agents and profiles"): three tries in all, with
// the shared backoff between them. A refusal Herdr makes before typing anything is final (recorded,
// the empty pane closed, no retry); any other failure leaves the outcome unknown, keeps the pane and
// is reconciled on the next try from what the pane shows now. Pure: the caller reads the pane.

import { backoffDelayMs } from './backoff.js';

/** `herdr agent start` calls per launch, the first included. */
export const START_TRIES = 3;

/** What one try ended in. */
export type TryOutcome =
  | { kind: 'started' }
  /** Herdr refused before typing (agent_pane_busy, agent_name_taken...): final. */
  | { kind: 'refused'; error: string }
  /** Anything else: the line may have been typed. */
  | { kind: 'unknown'; error: string };

/** After a try that did not start the agent: give up now, or wait this long and try again. */
export type AfterTry =
  | { kind: 'give-up'; why: 'refused' | 'tries' | 'deadline' }
  | { kind: 'retry'; waitMs: number };

/**
 * `tries` counts the calls made so far; `remainingMs` is what is left of the launch's deadline;
 * `random` the jitter draw; `scale` shrinks the schedule in tests (1 in production).
 */
export function afterTry(
  outcome: Exclude<TryOutcome, { kind: 'started' }>,
  tries: number,
  remainingMs: number,
  random: number,
  scale = 1,
): AfterTry {
  if (outcome.kind === 'refused') return { kind: 'give-up', why: 'refused' };
  if (tries >= START_TRIES) return { kind: 'give-up', why: 'tries' };
  const waitMs = Math.round(backoffDelayMs(tries - 1, random) * scale);
  // A wait that outlasts the deadline cannot end in a try: fail at once instead.
  if (waitMs >= remainingMs) return { kind: 'give-up', why: 'deadline' };
  return { kind: 'retry', waitMs };
}

/** The pane as the next try finds it after an unknown outcome. */
export interface PaneNow {
  /** The pane's terminal is still the one the launch recorded (false: the pane was replaced or closed). */
  sameTerminal: boolean;
  /** The agent Herdr reports in the pane, if any (kind as Herdr detected it, null while pending). */
  agent: { kind: string | null; ready: boolean; pending: boolean; status: string } | null;
  /** Without an agent: whether the pane's shell waits alone at its prompt (Herdr's available shell). */
  shellAvailable: boolean;
}

export type Reconciled =
  /** The earlier try's agent runs there: the launch started, nothing is typed again. */
  | { kind: 'adopt' }
  /** Nothing runs there: start again in the same pane. */
  | { kind: 'start' }
  /** Something else runs there, or the pane is gone: this try fails without typing. */
  | { kind: 'unknown'; error: string };

const ALIASES: Record<string, string> = { 'claude-code': 'claude' };

function canonical(kind: string): string {
  const lower = kind.toLowerCase();
  return ALIASES[lower] ?? lower;
}

/** What the next try does with the pane an unknown outcome left. */
export function reconcile(pane: PaneNow, kind: string): Reconciled {
  if (!pane.sameTerminal)
    return { kind: 'unknown', error: 'the pane was closed or replaced since the last try' };
  const agent = pane.agent;
  if (agent !== null) {
    if (agent.kind !== null && canonical(agent.kind) !== canonical(kind)) {
      return { kind: 'unknown', error: `the pane runs ${agent.kind}, not ${kind}` };
    }
    // Our kind, or a launch still pending: the earlier line was typed and the child runs.
    return { kind: 'adopt' };
  }
  if (pane.shellAvailable) return { kind: 'start' };
  return { kind: 'unknown', error: 'the pane runs something other than its shell' };
}
