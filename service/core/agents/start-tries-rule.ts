// How a child's `herdr agent start` is retried (spec, "Agents and profiles"): three tries in all, with
// the shared backoff between them. A refusal Herdr makes before typing anything is final (recorded,
// the empty pane closed, no retry); any other failure leaves the outcome unknown, keeps the pane and
// is reconciled on the next try from what the pane shows now. A pane that is gone is judged by what
// the child left behind (signsOfLife): one that demonstrably ran started and finished before Herdr
// confirmed it. Pure: the caller reads the pane and the state files.

import { backoffDelayMs } from '../common/backoff.js';

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
  /** The pane is gone, but the child ran first: the launch started (and finished) unconfirmed. */
  | { kind: 'finished'; signs: SignOfLife[] }
  /** Nothing runs there: start again in the same pane. */
  | { kind: 'start' }
  /** Something else runs there, or the pane is gone: this try fails without typing. */
  | { kind: 'unknown'; error: string };

const ALIASES: Record<string, string> = { 'claude-code': 'claude' };

function canonical(kind: string): string {
  const lower = kind.toLowerCase();
  return ALIASES[lower] ?? lower;
}

/** What the next try does with the pane an unknown outcome left; `signs` count only once it is gone. */
export function reconcile(pane: PaneNow, kind: string, signs: readonly SignOfLife[] = []): Reconciled {
  if (!pane.sameTerminal) {
    // A child that crashed before any sign of life, or a pane closed before anything ran, stays unknown.
    if (signs.length > 0) return { kind: 'finished', signs: [...signs] };
    return { kind: 'unknown', error: 'the pane was closed or replaced since the last try' };
  }
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

/** What proves a launch's child ran, in the order a reader trusts them. */
export type SignOfLife = 'done mark' | 'reply' | 'inbox record' | 'outbox record' | 'transcript';

/** The launch the signs must name: its id, its owner's item and the terminal it was typed into. */
export interface LaunchKey {
  launch: string;
  item: string | null;
  terminal: string;
  /** When the launch record was made: nothing older can come from its child. */
  createdMs: number;
}

/** What this host holds that a launch's child could have written or caused. */
export interface StartFacts {
  marks: readonly { launch: string | null; item: string | null; terminal_id: string | null }[];
  /** The launch's item as this host holds it. */
  item: { id: string; terminal_id: string | null; reply?: string | null | undefined } | null;
  /** Every inbox record here (the owner's, the child's own, any sender's). */
  inbox: readonly { sender: { terminal: string | null }; ref: string | null; created_ms: number }[];
  /** outbox.json: what this host keeps for owners elsewhere. */
  outbox: readonly {
    item: string;
    ref: string;
    created_ms: number;
    message?: { record: { sender: { terminal: string | null } } } | null;
  }[];
  /** A transcript of the launch's kind that names its task file, written since the launch began. */
  transcript: boolean;
}

/** Refs posted because the child itself did something (a `closed:` or `branch:` record proves nothing). */
function childRef(ref: string | null, item: string | null): boolean {
  if (ref === null || item === null) return false;
  return ref === `reply:${item}` || ref === `finished:${item}` || ref.startsWith(`blocked:${item}:`);
}

/**
 * The signs that this launch's child ran, each keyed by the launch (or its item) and its terminal,
 * never by a pane id, which Herdr may give to another terminal. A `pane gone` close, a kept branch or
 * a record older than the launch prove nothing.
 */
export function signsOfLife(key: LaunchKey, facts: StartFacts): SignOfLife[] {
  const signs: SignOfLife[] = [];
  const ours = (mark: StartFacts['marks'][number]) =>
    mark.terminal_id === key.terminal &&
    (mark.launch === key.launch || (mark.launch === null && key.item !== null && mark.item === key.item));
  if (facts.marks.some(ours)) signs.push('done mark');
  const item = facts.item;
  if (item !== null && item.id === key.item && item.terminal_id === key.terminal && item.reply != null)
    signs.push('reply');
  const fresh = (at: number) => at >= key.createdMs;
  const fromChild = (terminal: string | null) => terminal === key.terminal;
  if (
    facts.inbox.some(
      (r) => fresh(r.created_ms) && (fromChild(r.sender.terminal) || childRef(r.ref, key.item)),
    )
  )
    signs.push('inbox record');
  const posted = facts.outbox.some(
    (r) =>
      fresh(r.created_ms) &&
      r.item === key.item &&
      (childRef(r.ref, key.item) || fromChild(r.message?.record.sender.terminal ?? null)),
  );
  if (posted) signs.push('outbox record');
  if (facts.transcript) signs.push('transcript');
  return signs;
}
