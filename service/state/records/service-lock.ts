// The host's service lock: `serve` holds it for its lifetime (lock.ts: an owner record naming its
// pid and start time, the mtime kept fresh) and records itself in service.json so a second `serve`
// can name it. The service is up while its lock's owner lives, even stopped or hung (its snapshot
// then goes stale: ▲); a holder that died (SIGKILL) is taken over at once. Check, takeover, lock and
// record happen under the short service-acquire lock, so two starting `serve`s never both win.

import { rm, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { systemErrorText } from '../../core/common/system-errors.js';
import type { ServiceHolder } from '../../core/placement/host-types.js';
import { fsFailure } from '../engine/fs-errors.js';
import { identityAlive } from '../engine/liveness.js';
import {
  inspectLock,
  type LockOwner,
  type LockState,
  lockAbandoned,
  lockOnce,
  lossOf,
  withLock,
} from '../engine/lock.js';
import { readRegular } from '../engine/regular-file.js';
import { writeState } from '../engine/store.js';
import type { StatePaths } from '../paths.js';
import { ServiceHolderSchema } from '../schemas/host-schemas.js';

/** Acquisition takes milliseconds; waiting longer than the stale time lets a crashed acquirer expire. */
const ACQUIRE_TIMEOUT_MS = 15_000;

export interface ServiceLockOptions {
  /** Called (once) when the lock is found lost; the caller decides how to stop. */
  onLost: (error: DogsledError) => void;
  timeoutMs?: number;
}

export interface ServiceLock {
  /** Idempotent: later calls return the first call's promise. */
  release(): Promise<void>;
  /** Throws unless the lock is still this service's: checked before each publication. */
  assertHeld(): Promise<void>;
}

export interface ServiceStatus {
  state: 'up' | 'down';
  /** The live holder's record; null when down, or when a live lock has no readable record yet. */
  holder: ServiceHolder | null;
}

interface Observed {
  lock: LockState | undefined;
  holder: ServiceHolder | null;
  /** Nobody can still be using the lock: free, or its holder is dead (or silent past the stale time). */
  abandoned: boolean;
}

export async function acquireServiceLock(
  paths: StatePaths,
  holder: ServiceHolder,
  options: ServiceLockOptions,
): Promise<ServiceLock> {
  let taken: ServiceLock | undefined;
  try {
    return await withLock(
      paths.serviceAcquire,
      async () => {
        taken = await acquireSerialized(paths, holder, options);
        return taken;
      },
      { timeoutMs: options.timeoutMs ?? ACQUIRE_TIMEOUT_MS },
    );
  } catch (error) {
    // Only reachable if the acquire lock was lost around a successful take: do not leak the lock.
    await taken?.release();
    throw error;
  }
}

/** Caller holds the service-acquire lock, so nothing else creates or removes the service lock now. */
async function acquireSerialized(
  paths: StatePaths,
  holder: ServiceHolder,
  options: ServiceLockOptions,
): Promise<ServiceLock> {
  const seen = await observe(paths);
  if (seen.lock !== undefined && !seen.abandoned) throw alreadyRunning(seen.holder, seen.lock.owner);
  // The holder died without releasing (SIGKILL, power loss): take over now. The acquire lock keeps
  // any other starter out meanwhile.
  if (seen.lock !== undefined) await rm(lockDirOf(paths), { recursive: true, force: true });
  // A reader between our lock and our record must not pair the fresh lock with the old holder's pid.
  await unlink(paths.serviceHolder).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw fsFailure('remove', paths.serviceHolder, error);
  });

  let lost = false;
  const onCompromised = (error: Error): void => {
    lost = true;
    options.onLost(new DogsledError(`serve: lost the service lock (${messageOf(error)})`, { cause: error }));
  };
  let acquired: Awaited<ReturnType<typeof lockOnce>>;
  try {
    acquired = await lockOnce(paths.serviceLock, onCompromised);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOCKED') {
      const now = await observe(paths);
      throw alreadyRunning(now.holder, now.lock?.owner ?? null);
    }
    throw new DogsledError(
      `serve: cannot take the service lock ${lockDirOf(paths)}: ${systemErrorText(error)}`,
      { cause: error },
    );
  }
  const assertHeld = async (): Promise<void> => {
    const loss = lost ? 'its refresh failed' : await lossOf(paths.serviceLock, acquired.owner);
    if (loss !== undefined) throw new DogsledError(`serve: lost the service lock (${loss})`);
  };
  try {
    await writeState(paths.serviceHolder, ServiceHolderSchema, holder, { guard: assertHeld });
  } catch (error) {
    await acquired.release().catch(() => {});
    throw error;
  }

  let releasing: Promise<void> | undefined;
  const release = async (): Promise<void> => {
    if (lost) return;
    await acquired.release().catch((error: NodeJS.ErrnoException) => {
      // Already released because it was compromised meanwhile; onLost has told the caller.
      if (error.code !== 'ERELEASED' && error.code !== 'ENOTACQUIRED') throw error;
    });
  };
  return {
    release: () => {
      releasing ??= release();
      return releasing;
    },
    assertHeld,
  };
}

/** Up while a process that is not known to be dead holds the lock. Reads only; takes no lock. */
export async function readServiceState(paths: StatePaths): Promise<ServiceStatus> {
  const seen = await observe(paths);
  if (seen.lock === undefined || seen.abandoned) return { state: 'down', holder: null };
  return { state: 'up', holder: seen.holder };
}

async function observe(paths: StatePaths): Promise<Observed> {
  const lock = await inspectLock(paths.serviceLock);
  if (lock === undefined) return { lock, holder: null, abandoned: true };
  const holder = await readHolder(paths);
  return { lock, holder, abandoned: abandoned(lock, holder) };
}

function abandoned(lock: LockState, holder: ServiceHolder | null): boolean {
  if (lock.owner !== null) return lockAbandoned(lock);
  // No owner record: a lock taken by an older dogsled. Its service.json names the holder's pid.
  if (holder !== null && identityAlive({ pid: holder.pid, start: null, hostname: holder.hostname }) === false)
    return true;
  return lockAbandoned(lock);
}

/** The record is advisory and rewritten by every holder, so a bad one is ignored, not quarantined. */
async function readHolder(paths: StatePaths): Promise<ServiceHolder | null> {
  try {
    const text = await readRegular(paths.serviceHolder);
    if (text === undefined) return null;
    const parsed = ServiceHolderSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function lockDirOf(paths: StatePaths): string {
  return `${paths.serviceLock}.lock`;
}

function alreadyRunning(holder: ServiceHolder | null, owner: LockOwner | null): DogsledError {
  if (!holder) {
    const pid = owner ? `pid ${owner.pid}; ` : '';
    return new DogsledError(
      `serve: already running on this host (${pid}its record service.json is missing or unreadable)`,
    );
  }
  const where = holder.hostname === hostname() ? 'this host' : holder.hostname;
  return new DogsledError(
    `serve: already running on ${where} (pid ${holder.pid}, started ${formatLocalTime(holder.started_ms)})`,
  );
}

/** `2026-11-29 07:31:02` in local time, the form a user compares with `ps` and their clock. */
export function formatLocalTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
