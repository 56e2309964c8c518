// A lock's owner record for one new acquisition, and its name inside the lock dir: shared by the
// waiting lock (lock.ts, lock-owner.ts) and the one-try lock of update-now.ts, which loads neither
// node:fs/promises nor proper-lockfile.

import { selfIdentity } from './liveness.js';
import type { LockOwner } from './owner-record.js';
import { randomBytes } from './random.js';

export const OWNER_FILE = 'owner';

/** This process, for one new acquisition. */
export function newOwner(): LockOwner {
  return { ...selfIdentity(), token: randomBytes(8).toString('hex'), since_ms: Date.now() };
}
