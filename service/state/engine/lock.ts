// Cross-process file locks: proper-lockfile's atomic mkdir of `<file>.lock` (its mtime refreshed
// while held), with an `owner` record inside naming the holder: pid, start time, host and a token
// per acquisition. The record is written by the mkdir itself (a custom fs handed to proper-lockfile),
// so a lock without one was never completed (a crash right after mkdir).
//
// A lock is never broken while its holder lives (liveness.ts: pid and start time, which survive
// SIGSTOP): a waiter behind a frozen holder times out naming its pid. A dead holder's lock is broken
// at once; only a lock whose owner cannot be judged (no record, another host) falls back to the
// 10 s stale window. A writer checks its record right before it renames (HeldLock.assertOwned), so
// a lock lost anyway writes nothing. One breaker at a time: it must create `<file>.lock-break`
// (O_EXCL, naming itself), re-check under it, and only then remove the lock.
//
// Lock order, to rule out deadlock (take them top to bottom, never two file locks bottom to top):
//   1. service-acquire   only while `serve` starts and takes the service lock (service-lock.ts)
//   2. service           held by `serve` for its lifetime; never waited on by anything else
//   3. queue.json  4. items.json  4d. done.json  5. placements.json
//   4l. launches/<id>.json   one launch record at a time, never around the files above
//   5r. locks/repository-<hash>   prune's per-repository lock, held across one entry's removal
//   5a. repositories.json  5b. worktrees.json   registries (registries.ts); their sections only
//       stat paths, and nothing takes a lock inside them
//   5q. quota-collect   held across one quota collection (its HTTP calls included); inside it
//       only quota.json's own lock (a newer-wins write) and quarantine locks
//   6. any file's own lock taken by readState to quarantine it (brief, takes nothing inside)
//   7. inbox/<terminal>.json, gate.json   the message layer's files, each taken alone (service/inbox)
//   7p. parents.json   taken alone (state/parents.ts), never around or inside another lock
//   7h. history.jsonl  taken alone (history/history-file.ts), released before items.json is marked
// Locks are not re-entrant: locking a file twice in one process waits for itself until the timeout.

import { mkdir, open, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatAge } from '../../core/common/duration.js';
import { DogsledError, messageOf } from '../../core/common/errors.js';
import { systemErrorText } from '../../core/common/system-errors.js';
import { testKnob } from '../../core/common/test-knobs.js';
import { monotonicMs } from '../../time/timers.js';
import { identityAlive, selfIdentity } from './liveness.js';
import {
  type LockOwner,
  newOwner,
  OWNER_FILE,
  ownerRecordingFs,
  parseIdentity,
  readOwner,
} from './lock-owner.js';
import { readRegular } from './regular-file.js';

export type { LockOwner } from './lock-owner.js';

/** Loaded on first use: reads of state never need it, and start-up time matters for hooks. */
const loadLockfile = async () => (await import('proper-lockfile')).default;

/** Routine lock waits are bounded at 30 s (DESIGN §4). */
export const LOCK_TIMEOUT_MS = 30_000;
/**
 * A wait ends a second inside that bound: commands run it within a routine allowance of the same
 * 30 s (core/budget.ts), and the error that names the holder must be the one the user reads.
 */
const LOCK_WAIT_MS = LOCK_TIMEOUT_MS - 1_000;
/** A lock whose owner cannot be judged and whose mtime is this old was left by a crash. */
export const LOCK_STALE_MS = 10_000;

/** proper-lockfile's own staleness is switched off (see above); it still refreshes every 5 s. */
const NEVER_STALE_MS = 10 * 365 * 86_400_000;

const BACKOFF_FIRST_MS = 2;
const BACKOFF_MAX_MS = 50;

export interface LockOptions {
  timeoutMs?: number;
  /** Aborting it ends the wait with its reason. */
  signal?: AbortSignal | undefined;
}

/** Handed to the critical section so it can check, before it writes, that the lock is still ours. */
export interface HeldLock {
  /** Aborted when the lock is found lost (taken over, removed, or its refresh failed). */
  readonly signal: AbortSignal;
  /** Throws the DogsledError describing the loss, if the lock is known lost. */
  assertHeld(): void;
  /** Reads the lock's owner record and throws unless it is still this acquisition's. */
  assertOwned(): Promise<void>;
}

export interface AcquiredLock {
  owner: LockOwner;
  release: () => Promise<void>;
}

export async function withLock<T>(
  file: string,
  fn: (held: HeldLock) => Promise<T> | T,
  options: LockOptions = {},
): Promise<T> {
  const name = basename(file);
  const controller = new AbortController();
  const onCompromised = (error: Error): void => {
    controller.abort(lostError(name, messageOf(error), error));
  };
  const acquired = await acquire(
    file,
    name,
    options.timeoutMs ?? LOCK_WAIT_MS,
    onCompromised,
    options.signal,
  );
  const held: HeldLock = {
    signal: controller.signal,
    assertHeld: () => controller.signal.throwIfAborted(),
    assertOwned: async () => {
      controller.signal.throwIfAborted();
      const loss = await lossOf(file, acquired.owner);
      if (loss === undefined) return;
      controller.abort(lostError(name, loss));
      controller.signal.throwIfAborted();
    },
  };
  let result: T;
  try {
    result = await fn(held);
  } finally {
    await releaseQuietly(acquired.release);
  }
  // The section finished, but without the lock for part of it: the caller must not trust it.
  held.assertHeld();
  return result;
}

/**
 * One attempt at the lock on `file` (which need not exist); rejects with code ELOCKED when another
 * process holds it. The lock is `<file>.lock` with its owner record inside, its mtime refreshed.
 */
export async function lockOnce(file: string, onCompromised: (error: Error) => void): Promise<AcquiredLock> {
  const owner = newOwner();
  const release = await (await loadLockfile()).lock(file, {
    realpath: false,
    stale: NEVER_STALE_MS,
    update: LOCK_STALE_MS / 2,
    retries: 0,
    onCompromised,
    fs: ownerRecordingFs(owner),
  });
  return { owner, release };
}

/** Undefined while `owner` still holds the lock on `file`; otherwise what became of it. */
export async function lossOf(file: string, owner: LockOwner): Promise<string | undefined> {
  const seen = await inspectLock(file);
  if (seen === undefined) return 'the lock was removed';
  if (seen.owner?.token === owner.token) return undefined;
  if (seen.owner === null) return 'the lock was taken over';
  return `the lock was taken over by pid ${seen.owner.pid}`;
}

export interface LockState {
  mtimeMs: number;
  /** null when the record is missing or unreadable. */
  owner: LockOwner | null;
}

/** What `<file>.lock` looks like now; undefined when there is none. */
export async function inspectLock(file: string): Promise<LockState | undefined> {
  const dir = `${file}.lock`;
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(dir)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { mtimeMs, owner: await readOwner(join(dir, OWNER_FILE)) };
}

/**
 * Whether nobody can still be using this lock: its owner on this host is dead, or, when the owner
 * cannot be judged, it went unrefreshed for the stale window. A live owner is never abandoned, however
 * old its lock: it may be stopped (SIGSTOP, a suspended laptop) and will resume and write.
 */
export function lockAbandoned(state: LockState): boolean {
  if (state.owner !== null) {
    const alive = identityAlive(state.owner);
    if (alive !== undefined) return !alive;
  }
  return state.mtimeMs < Date.now() - lockStaleMs();
}

/**
 * Removes `<file>.lock` if it is abandoned. `retry` says the caller should try to lock again at once;
 * `holder` names the live owner it waits for. Only the creator of the break token acts, and it
 * re-checks under the token, so a lock another process just took is never removed.
 */
export async function breakIfAbandoned(file: string): Promise<{ retry: boolean; holder: LockOwner | null }> {
  const seen = await inspectLock(file);
  if (seen === undefined) return { retry: true, holder: null };
  if (!lockAbandoned(seen)) return { retry: false, holder: seen.owner };
  const token = `${file}.lock-break`;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(token, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await clearDeadBreaker(token);
    return { retry: false, holder: seen.owner };
  }
  try {
    try {
      await handle.writeFile(JSON.stringify(selfIdentity()));
    } finally {
      // Closed whatever the write did (a full disk): a handle left to the collector warns on stderr.
      await handle.close();
    }
    const now = await inspectLock(file);
    if (now !== undefined && lockAbandoned(now) && now.owner?.token === seen.owner?.token) {
      await rm(`${file}.lock`, { recursive: true, force: true });
    }
  } finally {
    await unlink(token).catch(() => {});
  }
  return { retry: true, holder: null };
}

/** A breaker that died holding the token would block every breaker: its token goes once it is dead. */
async function clearDeadBreaker(token: string): Promise<void> {
  const text = await readRegular(token).catch(() => undefined);
  const who = parseIdentity(text);
  const alive = who ? identityAlive(who) : undefined;
  if (alive === true) return;
  if (alive === undefined) {
    const mtime = await stat(token).then(
      (s) => s.mtimeMs,
      () => undefined,
    );
    if (mtime === undefined || mtime >= Date.now() - lockStaleMs()) return;
  }
  await unlink(token).catch(() => {});
}

/**
 * Retries one attempt with a short jittered backoff until the deadline. The deadline runs on the
 * real clock, never the injected one: a frozen test clock must not wait forever.
 */
async function acquire(
  file: string,
  name: string,
  timeoutMs: number,
  onCompromised: (error: Error) => void,
  signal: AbortSignal | undefined,
): Promise<AcquiredLock> {
  const deadline = monotonicMs() + timeoutMs;
  let delay = BACKOFF_FIRST_MS;
  let createdDir = false;
  let holder: LockOwner | null = null;
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await lockOnce(file, onCompromised);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !createdDir) {
        // The state dir does not exist yet (first run): create it like ensureStateDir would.
        createdDir = true;
        await mkdir(dirname(file), { recursive: true, mode: 0o700 }).catch(() => undefined);
        continue;
      }
      if (code !== 'ELOCKED') {
        throw new DogsledError(`lock on ${name}: ${systemErrorText(error)}`, { cause: error });
      }
      const verdict = await breakIfAbandoned(file);
      if (verdict.retry) continue;
      holder = verdict.holder;
    }
    const remaining = deadline - monotonicMs();
    if (remaining <= 0) throw timedOut(name, timeoutMs, holder);
    // Jitter keeps many waiters from retrying in lockstep; the cap keeps hand-over latency low.
    await sleep(Math.min(remaining, delay * (0.5 + Math.random())), undefined, { signal }).catch(() => {});
    delay = Math.min(BACKOFF_MAX_MS, delay * 1.6);
  }
}

function timedOut(name: string, timeoutMs: number, holder: LockOwner | null): DogsledError {
  let who = 'another dogsled process holds it';
  if (holder !== null) {
    who =
      holder.hostname === selfIdentity().hostname
        ? `pid ${holder.pid} holds it and is still running (stopped or stuck?)`
        : `pid ${holder.pid} on ${holder.hostname} holds it`;
  }
  return new DogsledError(`lock on ${name}: timed out after ${formatAge(timeoutMs)}: ${who}`);
}

function lostError(name: string, why: string, cause?: unknown): DogsledError {
  return new DogsledError(`lock on ${name}: lost while held (${why})`, { cause });
}

async function releaseQuietly(release: () => Promise<void>): Promise<void> {
  try {
    await release();
  } catch (error) {
    // A compromised lock is already released (ERELEASED); the loss is reported through assertHeld.
    if ((error as NodeJS.ErrnoException).code !== 'ERELEASED') throw error;
  }
}

/** The stale window; the LOCK_STALE_MS knob shortens it for tests, never the rule. */
export function lockStaleMs(): number {
  return testKnob(process.env, 'LOCK_STALE_MS') ?? LOCK_STALE_MS;
}

/**
 * The LOCK_HOLD_MS knob with LOCK_HOLD_FILE=<name>: a pause while holding the lock
 * on that file, between reading it and writing it (store.ts), so a test can freeze a real process
 * (SIGSTOP) at the worst moment; with LOCK_HOLD_STOP=1 it stops itself there, and the pause follows
 * its SIGCONT. `<file>.holding` (the pid) exists during the pause: a test that
 * froze the process earlier, in the middle of a request, would see the other side give up on it
 * (Herdr drops a connection whose request line does not come within 5 s) instead of the lock
 * behaviour it means to test.
 */
export async function testHoldInLock(file: string): Promise<void> {
  if (testKnob(process.env, 'LOCK_HOLD_FILE') !== basename(file)) return;
  const ms = testKnob(process.env, 'LOCK_HOLD_MS');
  if (ms === undefined) return;
  const marker = `${file}.holding`;
  await writeFile(marker, String(process.pid), { mode: 0o600 });
  try {
    // LOCK_HOLD_STOP: the process freezes itself right here, so a test never races the pause's end
    // to stop it from outside (a loaded machine can take longer to notice the lock than the pause).
    if (testKnob(process.env, 'LOCK_HOLD_STOP') === '1') process.kill(process.pid, 'SIGSTOP');
    // Node timers overflow at 2^31 ms and would fire at once: a larger pause is the longest one.
    await sleep(Math.min(ms, 2 ** 31 - 1));
  } finally {
    await unlink(marker).catch(() => {});
  }
}
