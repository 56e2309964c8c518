// A read-modify-write of one small state file done at once, synchronously, or not at all: for the
// hooks' hot path (the Stop gate's sweep request, written on every Stop of every agent), where
// loading node:fs/promises, proper-lockfile and the store is most of a hook's cost. It takes the
// very lock lock.ts takes (the `<file>.lock` directory made by mkdir, its owner record written
// O_EXCL inside, checked again before the rename), reads with the file's hand check and writes a
// temp file renamed over the old one, named as atomic-write.ts names it. It never waits and never
// judges a problem: a lock someone holds, a file it doubts (not a regular file, corrupt, refused by
// its check), a missing state dir or any failure undoes what it did and answers undefined, and the
// caller runs updateState (store.ts), which waits, breaks a dead holder's lock, quarantines and
// words the error.

import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { testKnob } from '../../core/common/test-knobs.js';
import { glanceText } from './glance-file.js';
import { selfIdentity } from './liveness.js';
import { newOwner, OWNER_FILE } from './new-owner.js';
import { parseOwner } from './owner-record.js';
import { randomBytes } from './random.js';
import type { RecordCheck } from './record-check.js';

export interface NowOptions {
  mode: number;
  /**
   * fsync the new text before the rename. Off only for a file whose loss in a power failure loses
   * nothing (each caller says why); the rename still gives readers one whole version or the other.
   */
  durable: boolean;
  /** `<name>.prev` (paths.ts backupOf): written with the same text and renamed first, as store.ts does. */
  backup?: string | undefined;
}

/** A lock taken by lockNow: still ours (its owner record unchanged), and its release. */
export interface HeldNow {
  owned(): boolean;
  release(): void;
}

/**
 * lock.ts's lock on `file` (which need not exist), taken at once or not at all: undefined when
 * someone holds it, or the state dir is missing (the full path waits, or makes and words it).
 */
export function lockNow(file: string): HeldNow | undefined {
  const lock = `${file}.lock`;
  const record = join(lock, OWNER_FILE);
  let token: string;
  try {
    const owner = newOwner();
    token = owner.token;
    mkdirSync(lock);
    try {
      writeText(record, `${JSON.stringify(owner)}\n`, constants.O_EXCL, 0o600, false);
    } catch (error) {
      // Someone else's record in our fresh directory means a breaker raced us: leave it theirs.
      // Ours half written (a full disk) goes with the directory, as lock-owner.ts's mkdir does.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') unlinkQuietly(record);
      rmdirQuietly(lock);
      return undefined;
    }
  } catch {
    return undefined;
  }
  const owned = () => {
    try {
      return parseOwner(glanceText(record) ?? undefined)?.token === token;
    } catch {
      return false;
    }
  };
  return {
    owned,
    // Removes the lock only while its record is still this acquisition's (lock-owner.ts's rule).
    // Left in place on a failure, for the next taker: its holder (this pid) is dead by then, so it
    // breaks at once.
    release: () => {
      if (!owned()) return;
      unlinkQuietly(record);
      rmdirQuietly(lock);
    },
  };
}

/**
 * `{ result }` when the update was done (or `fn` left the file as it was), undefined when it was not
 * tried or was undone: then nothing was written and the caller runs the full update.
 */
export function updateNow<T, R>(
  file: string,
  check: RecordCheck<T>,
  options: NowOptions & {
    /**
     * The check of what `fn` gives back, where less than `check` decides it (appendItem's: the
     * read passed `check`, and only the appended entry is new); `check` when absent.
     */
    writeCheck?: RecordCheck<T>;
  },
  fn: (current: T | undefined) => { result: R; next?: T | undefined },
): { result: R } | undefined {
  // A test that freezes a writer inside this file's lock means the full path (lock.ts's pause).
  if (testKnob(process.env, 'LOCK_HOLD_FILE') === basename(file)) return undefined;
  const held = lockNow(file);
  if (held === undefined) return undefined;
  const temps: string[] = [];
  try {
    const current = readNow(file, check);
    if (current === DOUBT) return undefined;
    const { result, next } = fn(current);
    if (next === undefined) return { result };
    const checked = (options.writeCheck ?? check).safeParse(next);
    if (!checked.success) return undefined;
    const text = `${JSON.stringify(checked.data, null, 2)}\n`;
    const targets = options.backup === undefined ? [file] : [options.backup, file];
    for (const target of targets) {
      const temp = tempName(target);
      temps.push(temp);
      writeText(temp, text, constants.O_EXCL, options.mode, options.durable);
    }
    // As lock.ts's writers do: a lock lost while we wrote (broken as abandoned) writes nothing.
    if (!held.owned()) return undefined;
    // The backup first, so it always holds every acknowledged change (store.ts).
    for (const [i, target] of targets.entries()) {
      renameSync(temps[i] as string, target);
      temps[i] = '';
    }
    return { result };
  } catch {
    return undefined;
  } finally {
    for (const temp of temps) if (temp !== '') unlinkQuietly(temp);
    held.release();
  }
}

/**
 * writeState's twin, synchronously, for a file no lock guards (its one writer makes it before
 * anyone reads it): the value checked, a temp file written (synced when `durable`) and renamed into
 * place. Throws what failed, with the temp file removed; no backup.
 */
export function writeNow<T>(
  file: string,
  check: RecordCheck<T>,
  value: T,
  options: Omit<NowOptions, 'backup'>,
): void {
  const checked = check.safeParse(value);
  if (!checked.success) throw new Error(`writeNow ${basename(file)}: value fails its schema`);
  const temp = tempName(file);
  try {
    writeText(
      temp,
      `${JSON.stringify(checked.data, null, 2)}\n`,
      constants.O_EXCL,
      options.mode,
      options.durable,
    );
    renameSync(temp, file);
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  }
}

/** atomic-write.ts's temp name: the target, the writer's pid and start ticks, random hex. */
function tempName(target: string): string {
  const me = selfIdentity();
  return `${target}.tmp-${me.pid}-${me.start ?? 'x'}-${randomBytes(4).toString('hex')}`;
}

/** What readNow answers for a file the full reader must judge (not a regular file, corrupt, refused). */
export const DOUBT = Symbol('doubt');

/**
 * The record, undefined when there is no file, DOUBT for anything the full reader must judge: a
 * file read beside the one updateNow holds (under that lock), with the same hand read.
 */
export function readNow<T>(file: string, check: RecordCheck<T>): T | undefined | typeof DOUBT {
  const text = glanceText(file);
  if (text === undefined) return DOUBT;
  if (text === null) return undefined;
  try {
    const checked = check.safeParse(JSON.parse(text));
    return checked.success ? checked.data : DOUBT;
  } catch {
    return DOUBT;
  }
}

function writeText(path: string, text: string, flags: number, mode: number, durable: boolean): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | flags, mode);
  try {
    // The creation mode is filtered by the umask; state files are always exactly `mode`.
    fchmodSync(fd, mode);
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function rmdirQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not ours to clean any further.
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
