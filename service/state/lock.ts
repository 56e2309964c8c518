// Cross-process file locks (proper-lockfile: an atomic mkdir of `<file>.lock`, its mtime refreshed
// while held, stale after 10 s without refresh). Waits are bounded; a lock lost while held becomes a
// DogsledError, never an asynchronous throw that kills the process.
//
// Stale locks are broken here, not by proper-lockfile: its own check-then-rmdir lets two waiters
// that both saw the same stale lock each remove the other's fresh one and both "hold" it. Here a
// breaker must first create the `<file>.lock-break` token (O_EXCL), so one breaker at a time
// re-checks and removes a lock, and never one that became fresh meanwhile.
//
// Lock order, to rule out deadlock (take them top to bottom, never two file locks bottom to top):
//   1. service-acquire   only while `serve` starts and takes the service lock (service-lock.ts)
//   2. service           held by `serve` for its lifetime; never waited on by anything else
//   3. queue.json  4. items.json  5. placements.json
//   5r. locks/repository-<hash>   prune's per-repository lock, held across one entry's removal
//   5a. repositories.json  5b. worktrees.json   registries (registries.ts); their sections only
//       stat paths, and nothing takes a lock inside them
//   6. any file's own lock taken by readState to quarantine it (brief, takes nothing inside)
//   7. inbox/<terminal>.json, gate.json   the message layer's files, each taken alone (service/inbox)
// Locks are not re-entrant: locking a file twice in one process waits for itself until the timeout.

import { mkdir, open, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatAge } from '../core/duration.js';
import { DogsledError, messageOf } from '../errors.js';

/** Loaded on first use: reads of state never need it, and start-up time matters for hooks. */
const loadLockfile = async () => (await import('proper-lockfile')).default;

/** Routine lock waits are bounded at 30 s (DESIGN §4). */
export const LOCK_TIMEOUT_MS = 30_000;
/** A lock whose mtime has not been refreshed for this long belongs to a dead process. */
export const LOCK_STALE_MS = 10_000;

/** proper-lockfile's own staleness is switched off (see above); it still refreshes every 5 s. */
const NEVER_STALE_MS = 10 * 365 * 86_400_000;
const REFRESH_MS = LOCK_STALE_MS / 2;

const BACKOFF_FIRST_MS = 2;
const BACKOFF_MAX_MS = 50;

export interface LockOptions {
  timeoutMs?: number;
}

/** Handed to the critical section so it can check, before it writes, that the lock is still ours. */
export interface HeldLock {
  /** Aborted when proper-lockfile reports the lock compromised (stolen as stale, or refresh failed). */
  readonly signal: AbortSignal;
  /** Throws the DogsledError describing the loss, if the lock was lost. */
  assertHeld(): void;
}

type Release = () => Promise<void>;

export async function withLock<T>(
  file: string,
  fn: (held: HeldLock) => Promise<T> | T,
  options: LockOptions = {},
): Promise<T> {
  const name = basename(file);
  const controller = new AbortController();
  const onCompromised = (error: Error): void => {
    controller.abort(
      new DogsledError(`lock on ${name}: lost while held (${messageOf(error)})`, { cause: error }),
    );
  };
  const release = await acquire(file, name, options.timeoutMs ?? LOCK_TIMEOUT_MS, onCompromised);
  const held: HeldLock = {
    signal: controller.signal,
    assertHeld: () => controller.signal.throwIfAborted(),
  };
  let result: T;
  try {
    result = await fn(held);
  } finally {
    await releaseQuietly(release);
  }
  // The section finished, but without the lock for part of it: the caller must not trust it.
  held.assertHeld();
  return result;
}

/**
 * One attempt at proper-lockfile's lock on `file` (which need not exist); rejects with code ELOCKED
 * when another process holds it. The lock is `<file>.lock`, its mtime refreshed while held.
 */
export async function tryLock(file: string, onCompromised: (error: Error) => void): Promise<Release> {
  return (await loadLockfile()).lock(file, {
    realpath: false,
    stale: NEVER_STALE_MS,
    update: REFRESH_MS,
    retries: 0,
    onCompromised,
  });
}

/**
 * Removes `<file>.lock` if it has gone stale (its holder stopped refreshing it: a crash). Returns
 * true when the caller should try to lock again at once. Only the creator of the break token acts,
 * and it re-checks under the token, so a lock that another process just took is never removed.
 */
export async function breakIfStale(file: string): Promise<boolean> {
  const lockDir = `${file}.lock`;
  const token = `${file}.lock-break`;
  const seen = await mtimeOf(lockDir);
  if (seen === undefined) return true;
  if (!isStale(seen)) return false;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(token, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another breaker is at work; a token as old as a stale lock was left by a crashed breaker.
    const tokenTime = await mtimeOf(token);
    if (tokenTime !== undefined && isStale(tokenTime)) await unlink(token).catch(() => {});
    return false;
  }
  try {
    await handle.close();
    const now = await mtimeOf(lockDir);
    if (now !== undefined && isStale(now)) await rm(lockDir, { recursive: true, force: true });
  } finally {
    await unlink(token).catch(() => {});
  }
  return true;
}

/** Judged on the real clock, like the holder's refreshes: an injected test clock must not matter. */
function isStale(mtimeMs: number): boolean {
  return mtimeMs < Date.now() - LOCK_STALE_MS;
}

async function mtimeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Retries proper-lockfile's single attempt with a short jittered backoff until the deadline. The
 * deadline runs on the real clock, never the injected one: a frozen test clock must not wait forever.
 */
async function acquire(
  file: string,
  name: string,
  timeoutMs: number,
  onCompromised: (error: Error) => void,
): Promise<Release> {
  const deadline = performance.now() + timeoutMs;
  let delay = BACKOFF_FIRST_MS;
  let createdDir = false;
  for (;;) {
    try {
      return await tryLock(file, onCompromised);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !createdDir) {
        // The state dir does not exist yet (first run): create it like ensureStateDir would.
        createdDir = true;
        await mkdir(dirname(file), { recursive: true, mode: 0o700 });
        continue;
      }
      if (code !== 'ELOCKED') {
        throw new DogsledError(`lock on ${name}: ${messageOf(error)}`, { cause: error });
      }
      if (await breakIfStale(file)) continue;
    }
    const remaining = deadline - performance.now();
    if (remaining <= 0) {
      throw new DogsledError(
        `lock on ${name}: timed out after ${formatAge(timeoutMs)}: another dogsled process holds it`,
      );
    }
    // Jitter keeps many waiters from retrying in lockstep; the cap keeps hand-over latency low.
    await sleep(Math.min(remaining, delay * (0.5 + Math.random())));
    delay = Math.min(BACKOFF_MAX_MS, delay * 1.6);
  }
}

async function releaseQuietly(release: Release): Promise<void> {
  try {
    await release();
  } catch (error) {
    // A compromised lock is already released (ERELEASED); the loss is reported through assertHeld.
    if ((error as NodeJS.ErrnoException).code !== 'ERELEASED') throw error;
  }
}
