// The `--max` budget (spec, "Jobs, agents, and owners"): one deadline from command start over
// discovery, placement, admission and completion. Each operation gets what remains, capped at
// 30 s for routine calls and lock waits and 10 minutes for setup.

import { formatAge } from '../common/duration.js';

/** `--max` when the caller gives none. */
export const MAX_DEFAULT_MS = 30 * 60_000;
export const ROUTINE_CAP_MS = 30_000;
export const SETUP_CAP_MS = 10 * 60_000;

export type OperationKind = 'routine' | 'setup' | 'wait';

/** Milliseconds left before `deadline_ms`, never negative. */
export function remainingMs(deadlineMs: number, now: number): number {
  return Math.max(0, deadlineMs - now);
}

/** What one operation may take: the remaining budget, capped by its kind (a wait is not capped). */
export function operationMs(kind: OperationKind, deadlineMs: number, now: number): number {
  const left = remainingMs(deadlineMs, now);
  if (kind === 'routine') return Math.min(left, ROUTINE_CAP_MS);
  if (kind === 'setup') return Math.min(left, SETUP_CAP_MS);
  return left;
}

/**
 * The one-line report of an operation that ran out: by the command's `--max` when that is what
 * ended it, else by the operation's own cap.
 */
export function exceededMessage(operation: string, allowedMs: number, byMax: boolean, maxMs: number): string {
  return byMax
    ? `${operation} exceeded its deadline: --max ${formatAge(maxMs)} ran out`
    : `${operation} exceeded its deadline of ${formatAge(allowedMs)}`;
}
