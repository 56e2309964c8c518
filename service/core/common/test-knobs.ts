// The test knobs: environment variables that let a test shorten a wait, open a crash window or stand
// in a fixture for the machine. This module is the only code that names them (`npm run check`
// refuses `DOGSLED_TEST_…` anywhere else in the product); a production module asks
// `testKnob(env, 'STALL_MS')` with the environment it was given, and gets a typed value or
// undefined. Every knob but the spec's STALL_MS counts only with DOGSLED_TEST=1, so a stray variable
// in a user's shell never changes a real host. The README's Development section lists them all.

import { DogsledError } from './errors.js';

/**
 * How a knob's text is read. `ms`: a positive integer (anything else leaves the knob unset);
 * `instant`: a non-negative integer, and a malformed value is an error, as for the test clock;
 * `count`: the same, for a non-negative count of milliseconds; `fraction`: a number above 0 and at
 * most 1; `text`: the text itself, unset when empty.
 */
type Reading = 'ms' | 'instant' | 'count' | 'fraction' | 'text';

interface Knob {
  read: Reading;
  /** Read only with DOGSLED_TEST=1 (every knob but STALL_MS, which the spec leaves ungated). */
  gated: boolean;
}

const KNOBS = {
  NOW_MS: { read: 'instant', gated: true },
  STALL_MS: { read: 'text', gated: false },
  STOP_GRACE_MS: { read: 'count', gated: true },
  WATCHDOG_PACE_MS: { read: 'ms', gated: true },
  PEERS_PACE_MS: { read: 'ms', gated: true },
  PEER_BUDGET_MS: { read: 'ms', gated: true },
  BUS_STALE_MS: { read: 'ms', gated: true },
  FACTS_TIMEOUT_MS: { read: 'ms', gated: true },
  OUTBOX_LEASE_MS: { read: 'ms', gated: true },
  LOCK_STALE_MS: { read: 'ms', gated: true },
  LOCK_HOLD_FILE: { read: 'text', gated: true },
  LOCK_HOLD_MS: { read: 'ms', gated: true },
  LOCK_HOLD_STOP: { read: 'text', gated: true },
  ADMISSION_PAUSE_AT: { read: 'text', gated: true },
  ADMISSION_PAUSE_MS: { read: 'ms', gated: true },
  HOOK_PAUSE_MS: { read: 'ms', gated: true },
  ECHO_DELAY_MS: { read: 'ms', gated: true },
  OUTBOX_CRASH: { read: 'text', gated: true },
  LAUNCH_BACKOFF_SCALE: { read: 'fraction', gated: true },
  PROBE_ROOT: { read: 'text', gated: true },
  QUOTA_KEY_COMMAND: { read: 'text', gated: true },
  SIDEBAR_HOSTS: { read: 'text', gated: true },
  SIDEBAR_POLL_MS: { read: 'ms', gated: true },
  SIDEBAR_BACKGROUND_MS: { read: 'ms', gated: true },
  SIDEBAR_HOLD_MS: { read: 'ms', gated: true },
  WARM_HOLD_MS: { read: 'ms', gated: true },
} as const satisfies Record<string, Knob>;

export type KnobName = keyof typeof KNOBS;

/** What a knob reads as: text for `text` knobs, a number for the others. */
export type KnobValue<K extends KnobName> = (typeof KNOBS)[K]['read'] extends 'text' ? string : number;

/** The environment a knob is read from: the caller's, never this module's own choice. */
export type KnobEnv = Readonly<Record<string, string | undefined>>;

/** Every knob's name, in the order the README lists them. */
export const KNOB_NAMES = Object.keys(KNOBS) as KnobName[];

/** The variable that carries knob `name`: `DOGSLED_TEST_<name>`. */
export function knobVariable(name: KnobName): string {
  return `DOGSLED_TEST_${name}`;
}

/** Whether the test knobs count at all: DOGSLED_TEST=1. */
export function testing(env: KnobEnv): boolean {
  return env.DOGSLED_TEST === '1';
}

/**
 * Knob `name` as its caller uses it, or undefined when it is unset, gated off or (for `ms` and
 * `fraction` knobs) not a value it could take. An `instant` or `count` knob that is set but is not
 * an integer throws a one-line DogsledError naming the variable.
 */
export function testKnob<K extends KnobName>(env: KnobEnv, name: K): KnobValue<K> | undefined {
  const knob: Knob = KNOBS[name];
  if (knob.gated && !testing(env)) return undefined;
  const text = env[knobVariable(name)];
  if (text === undefined || text === '') return undefined;
  return readKnob(knob.read, name, text) as KnobValue<K> | undefined;
}

function readKnob(read: Reading, name: KnobName, text: string): string | number | undefined {
  if (read === 'text') return text;
  const value = Number(text);
  if (read === 'ms') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (read === 'fraction') return Number.isFinite(value) && value > 0 && value <= 1 ? value : undefined;
  if (/^\d+$/.test(text.trim()) && Number.isSafeInteger(value)) return value;
  const unit = read === 'instant' ? ' (Unix milliseconds)' : '';
  throw new DogsledError(`${knobVariable(name)}: "${text}" is not an integer${unit}`);
}
