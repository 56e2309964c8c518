// A hook's flags, checked as the full hook (commands/hook.ts) and the lean one (hot/hook-lean.ts)
// both need them, and the budget every hook runs in: the harnesses kill a hook after five seconds,
// so whatever hangs (a lock held by a frozen process, a FIFO where a state file should be, a Herdr
// that never answers, a stdin that never ends), the harness gets a silent success first.

import {
  CONTEXT_HOOK_EVENTS,
  HOOK_HARNESSES,
  INBOX_HOOK_EVENTS,
  STATE_HOOK_EVENTS,
} from '../service/actions/hook.js';
import { DogsledError } from '../service/core/common/errors.js';
import { clip, plainLine } from '../service/core/text/clean.js';

export const HOOK_SUBCOMMANDS = ['inbox', 'context', 'gate', 'state'] as const;
export type HookSubcommand = (typeof HOOK_SUBCOMMANDS)[number];

/** The harnesses kill a hook after five seconds; this one gives up silently a little before. */
const HOOK_BUDGET_MS = 4_500;

export interface HookFlags {
  sub: HookSubcommand;
  harness?: string;
  event?: string;
  /** A flag the fast path could not parse (cli/fast-path.ts): the hook only logs it. */
  usage?: string;
}

function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
  command: string,
): T {
  if (value !== undefined && (allowed as readonly string[]).includes(value)) return value as T;
  const got = value === undefined ? 'nothing' : `"${clip(plainLine(value), 40)}"`;
  throw new DogsledError(`${command}: ${flag} must be ${allowed.join(' or ')}, got ${got}`);
}

/** Validated flags; a mistake throws the one line hooks.log gets. */
export function checkedHook(flags: HookFlags) {
  if (flags.usage !== undefined) throw new DogsledError(`hook ${flags.sub}: ${plainLine(flags.usage)}`);
  if (flags.sub === 'inbox') {
    return {
      sub: 'inbox' as const,
      harness: oneOf('--harness', flags.harness, ['claude', 'codex'] as const, 'hook inbox'),
      event: oneOf('--event', flags.event, INBOX_HOOK_EVENTS, 'hook inbox'),
    };
  }
  if (flags.sub === 'context') {
    return {
      sub: 'context' as const,
      harness: oneOf('--harness', flags.harness, HOOK_HARNESSES, 'hook context'),
      event: oneOf('--event', flags.event ?? 'UserPromptSubmit', CONTEXT_HOOK_EVENTS, 'hook context'),
    };
  }
  if (flags.sub === 'state') {
    return {
      sub: 'state' as const,
      harness: oneOf('--harness', flags.harness, ['claude'] as const, 'hook state'),
      event: oneOf('--event', flags.event, STATE_HOOK_EVENTS, 'hook state'),
    };
  }
  return { sub: 'gate' as const };
}

export type CheckedHook = ReturnType<typeof checkedHook>;

/** Ends the process with a silent success once the budget is spent; the returned stop clears it. */
export function hookBudget(): () => void {
  const budget = setTimeout(() => process.exit(0), HOOK_BUDGET_MS);
  budget.unref();
  return () => clearTimeout(budget);
}
