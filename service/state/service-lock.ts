// The host's service lock: `serve` holds it for its lifetime (proper-lockfile keeps its mtime fresh)
// and records itself in service.json. A holder killed with SIGKILL never blocks the next `serve`:
// a dead holder pid on this host is taken over at once. Check, takeover, lock and record happen under
// the short service-acquire lock, so two starting `serve`s can never both win or remove each other.

import { readFile, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { DogsledError, messageOf } from '../errors.js';
import { LOCK_STALE_MS, tryLock, withLock } from './lock.js';
import type { StatePaths } from './paths.js';
import { type ServiceHolder, ServiceHolderSchema } from './schemas.js';
import { writeState } from './store.js';

/** Acquisition takes milliseconds; waiting longer than the stale time lets a crashed acquirer expire. */
const ACQUIRE_TIMEOUT_MS = 15_000;

export interface ServiceLockOptions {
  /** Called (once) when the lock is stolen or its refresh fails; the caller decides how to stop. */
  onLost: (error: DogsledError) => void;
  timeoutMs?: number;
}

export interface ServiceLock {
  /** Idempotent: later calls return the first call's promise. */
  release(): Promise<void>;
}

export interface ServiceStatus {
  state: 'up' | 'down';
  /** The live holder's record; null when down, or when a fresh lock has no readable record yet. */
  holder: ServiceHolder | null;
}

interface Observed {
  exists: boolean;
  /** The lock dir exists and was refreshed within the stale time. */
  fresh: boolean;
  holder: ServiceHolder | null;
  /** false only when the holder is on this host and its pid is gone; unknown counts as alive. */
  alive: boolean;
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
  const lockDir = lockDirOf(paths);
  const seen = await observe(paths);
  if (seen.fresh && seen.alive) throw alreadyRunning(seen.holder);
  if (seen.exists) {
    // The holder died without releasing (SIGKILL, power loss: take over now, not after the stale
    // time), or stopped refreshing (stale). The acquire lock keeps any other starter out meanwhile.
    await rm(lockDir, { recursive: true, force: true });
  }
  // A reader between our lock and our record must not pair the fresh lock with the old holder's pid.
  await rm(paths.serviceHolder, { force: true });

  let lost = false;
  const onCompromised = (error: Error): void => {
    lost = true;
    options.onLost(new DogsledError(`serve: lost the service lock (${messageOf(error)})`, { cause: error }));
  };
  let unlock: () => Promise<void>;
  try {
    unlock = await tryLock(paths.serviceLock, onCompromised);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOCKED') throw alreadyRunning((await observe(paths)).holder);
    throw new DogsledError(`serve: cannot take the service lock ${lockDir}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  try {
    await writeState(paths.serviceHolder, ServiceHolderSchema, holder);
  } catch (error) {
    await unlock().catch(() => {});
    throw error;
  }

  let releasing: Promise<void> | undefined;
  const release = async (): Promise<void> => {
    if (lost) return;
    await unlock().catch((error: NodeJS.ErrnoException) => {
      // Already released because it was compromised meanwhile; onLost has told the caller.
      if (error.code !== 'ERELEASED' && error.code !== 'ENOTACQUIRED') throw error;
    });
  };
  return {
    release: () => {
      releasing ??= release();
      return releasing;
    },
  };
}

/** Up when the lock is fresh and its holder is not known to be dead. Reads only; takes no lock. */
export async function readServiceState(paths: StatePaths): Promise<ServiceStatus> {
  const seen = await observe(paths);
  if (!seen.fresh || !seen.alive) return { state: 'down', holder: null };
  return { state: 'up', holder: seen.holder };
}

async function observe(paths: StatePaths): Promise<Observed> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(lockDirOf(paths))).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { exists: false, fresh: false, holder: null, alive: false };
    throw error;
  }
  // Staleness is judged on the real clock, as proper-lockfile does: an injected test clock must not
  // make a live holder look dead.
  const fresh = mtimeMs >= Date.now() - LOCK_STALE_MS;
  const holder = await readHolder(paths);
  // No readable record: assume alive until the lock goes stale (the record may be mid-write).
  const alive = holder === null || holder.hostname !== hostname() || pidAlive(holder.pid);
  return { exists: true, fresh, holder, alive };
}

/** The record is advisory and rewritten by every holder, so a bad one is ignored, not quarantined. */
async function readHolder(paths: StatePaths): Promise<ServiceHolder | null> {
  try {
    const parsed = ServiceHolderSchema.safeParse(JSON.parse(await readFile(paths.serviceHolder, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Signal 0 checks existence only. EPERM means the pid exists under another user: alive. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function lockDirOf(paths: StatePaths): string {
  return `${paths.serviceLock}.lock`;
}

function alreadyRunning(holder: ServiceHolder | null): DogsledError {
  if (!holder) {
    return new DogsledError(
      'serve: already running on this host (its record service.json is missing or unreadable)',
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
