// What a lock's owner record (`<file>.lock/owner`, lock-owner.ts) and a lock breaker's token say,
// parsed: a module without file access, so a lean reader (hosts/local-glance.ts) judges the
// service lock's owner as lock.ts does without loading the lock.

import type { ProcessIdentity } from './liveness.js';

/** The record inside a lock dir; the token tells two acquisitions by one process apart. */
export interface LockOwner extends ProcessIdentity {
  token: string;
  since_ms: number;
}

export function parseOwner(text: string | undefined): LockOwner | null {
  const who = parseIdentity(text) as (ProcessIdentity & Partial<LockOwner>) | null;
  if (who === null || typeof who.token !== 'string' || typeof who.since_ms !== 'number') return null;
  return who as LockOwner;
}

export function parseIdentity(text: string | undefined): ProcessIdentity | null {
  if (text === undefined) return null;
  try {
    const value = JSON.parse(text) as Partial<ProcessIdentity> | null;
    if (
      typeof value?.pid !== 'number' ||
      !Number.isSafeInteger(value.pid) ||
      value.pid <= 0 ||
      typeof value.hostname !== 'string' ||
      !(value.start === null || typeof value.start === 'number')
    ) {
      return null;
    }
    return value as ProcessIdentity;
  } catch {
    return null;
  }
}
