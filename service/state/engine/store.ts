// The state-file store: whole-file JSON records validated by their zod schema (or a hand check of
// the same contract, record-check.ts) on every read and write. Writes go to a temp file in the same
// dir, fsync, rename (0600), so a reader sees one whole version or the previous one;
// read-modify-write happens only under the file's lock, and its write is dropped if the lock turns
// out lost. Only regular files are read (regular-file.ts). A file that does not parse, or is past
// the 64 MiB no record reaches (bounded-read.ts), is quarantined with one warning; files with a
// backup (paths.ts) are then recovered from `<name>.prev`, the others read as missing, never as `{}`.
// In the service, a record read unlocked from a file that has not changed since is not read again
// (read-memo.ts).

import { type BigIntStats, closeSync, fstatSync } from 'node:fs';
import { basename } from 'node:path';
import { squeezedLine } from '../../core/text/clean.js';
import type { StateIO } from '../io.js';
import { backupOf, STATE_FILE_MODE } from '../paths.js';
import { stageAtomic, writeAtomic } from './atomic-write.js';
import { FileTooLarge, readFdBounded } from './bounded-read.js';
import { fsFailure } from './fs-errors.js';
import { type HeldLock, testHoldInLock, withLock } from './lock.js';
import { quarantineFile, quarantineWarning } from './quarantine.js';
import { keepingRecords, keepRecord, keptRecord } from './read-memo.js';
import type { Checked, CheckInput, CheckIssue, RecordCheck } from './record-check.js';
import { openRegularNow, readRegularNow } from './regular-file.js';

/** The part of StateIO the store uses: it is given each file's path. */
type StoreIO = Pick<StateIO, 'now' | 'warn' | 'signal'>;

export interface Update<T, R> {
  result: R;
  /** The new record; undefined leaves the file untouched. */
  next?: T | undefined;
}

/** `identity`: the file's stat taken before an unlocked read, for the memo (read-memo.ts). */
type Read<T> =
  | { kind: 'ok'; value: T; identity?: BigIntStats }
  | { kind: 'missing' }
  | { kind: 'corrupt'; reason: string };

/** The record in `file`, or undefined when it is missing or was corrupt (then it is moved aside). */
export async function readState<S extends RecordCheck>(
  file: string,
  schema: S,
  ctx: StoreIO,
): Promise<Checked<S> | undefined> {
  const kept = keptRecord(file, schema);
  if (kept !== undefined) return kept.value as Checked<S>;
  const first = await readOnce(file, schema, undefined);
  if (first.kind === 'ok') {
    if (first.identity !== undefined) keepRecord(file, schema, first.identity, first.value, Date.now());
    return first.value;
  }
  if (first.kind === 'missing') return undefined;
  // Judge again under the lock, so a locked writer cannot replace the file between verdict and move.
  return withLock(file, (held) => readLocked(file, schema, ctx, held), { signal: ctx.signal });
}

export interface WriteOptions {
  /** Runs right before each rename; throws to write nothing (a lock found lost). */
  guard?: () => Promise<void>;
}

/**
 * Validates, then replaces `file` atomically; resolves the text written. A file with a backup gets
 * the same text in `<name>.prev` first, so the backup always holds every acknowledged change. A
 * value that fails its schema is a bug, not user error.
 */
export async function writeState<S extends RecordCheck>(
  file: string,
  schema: S,
  value: CheckInput<S>,
  options: WriteOptions = {},
): Promise<string> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new Error(`writeState ${basename(file)}: value fails its schema: ${describeIssue(parsed.error)}`);
  }
  const text = `${JSON.stringify(parsed.data, null, 2)}\n`;
  const write = { mode: STATE_FILE_MODE, ...(options.guard ? { guard: options.guard } : {}) };
  const backup = backupOf(file);
  if (backup === undefined) {
    await writeAtomic(file, text, write);
    return text;
  }
  // Both temp files are written and synced together (one fsync's wait, not two); the renames keep
  // their order, backup first, so the backup still holds every acknowledged change.
  const staged = await Promise.allSettled([stageAtomic(backup, text, write), stageAtomic(file, text, write)]);
  const [prev, main] = staged;
  if (prev.status === 'rejected' || main.status === 'rejected') {
    for (const s of staged) if (s.status === 'fulfilled') await s.value.abandon();
    throw prev.status === 'rejected' ? prev.reason : (main as PromiseRejectedResult).reason;
  }
  try {
    await prev.value.commit();
  } catch (error) {
    await main.value.abandon();
    throw error;
  }
  await main.value.commit();
  return text;
}

/**
 * Read-modify-write under the file's lock. `fn` sees the current record (undefined when missing)
 * and returns `{ result, next }`; `next` is written unless undefined. Records are loose objects, so
 * fields written by a newer dogsled survive when `fn` spreads the record it was given.
 */
export async function updateState<S extends RecordCheck, U extends Update<CheckInput<S>, unknown>>(
  file: string,
  schema: S,
  ctx: StoreIO,
  fn: (current: Checked<S> | undefined) => Promise<U> | U,
): Promise<U['result']> {
  return withLock(
    file,
    async (held: HeldLock) => {
      const current = await readLocked(file, schema, ctx, held);
      const { result, next } = await fn(current);
      if (next !== undefined) {
        await testHoldInLock(file);
        // Writing after the lock was lost could overwrite the new holder's write, and writing after
        // the caller gave up would be a change nobody was told of: both are checked before each
        // rename, the lock on its owner record itself.
        const guard = async (): Promise<void> => {
          ctx.signal?.throwIfAborted();
          await held.assertOwned();
        };
        held.assertHeld();
        await writeState(file, schema, next, { guard });
      }
      return result;
    },
    { signal: ctx.signal },
  );
}

/** Caller holds the file's lock. Bounded retries: each miss means an unlocked writer just replaced it. */
async function readLocked<S extends RecordCheck>(
  file: string,
  schema: S,
  ctx: StoreIO,
  held: HeldLock,
): Promise<Checked<S> | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const read = await readOnce(file, schema, { ...ctx, held });
    if (read.kind === 'ok') return read.value;
    if (read.kind === 'missing') return undefined;
  }
  return undefined;
}

/**
 * One read. With `ctx` (the caller holds the lock), a corrupt file is quarantined while our
 * descriptor still pins its inode, so the identity check in quarantineFile cannot be fooled by inode
 * reuse; with a valid backup, the backup's text replaces it and is the value read.
 */
async function readOnce<S extends RecordCheck>(
  file: string,
  schema: S,
  ctx: (StoreIO & { held: HeldLock }) | undefined,
): Promise<Read<Checked<S>>> {
  // Opened and read synchronously (regular-file.ts says why); the descriptor is held to the end.
  const fd = openRegularNow(file);
  if (fd === undefined) return { kind: 'missing' };
  try {
    // Taken before the read, so a change during it makes the memo's next stat differ.
    const before = ctx || !keepingRecords() ? undefined : fstatSync(fd, { bigint: true });
    const text = readAll(fd, file);
    const verdict = text instanceof FileTooLarge ? tooLarge(text) : judge(text, schema);
    if (verdict.kind === 'ok' && before !== undefined) return { ...verdict, identity: before };
    if (verdict.kind !== 'corrupt' || !ctx) return verdict;
    const identity = fstatSync(fd);
    const backupFile = backupOf(file);
    const backup = backupFile === undefined ? undefined : await readBackup(backupFile, schema);
    // With a backup the corrupt file is copied aside and then replaced; without, moved aside.
    const movedTo = await quarantineFile(file, identity, ctx.now(), { keep: backup !== undefined });
    // Not moved: the file was replaced or removed after we read it; the caller reads it again.
    if (movedTo === undefined) return verdict;
    if (backupFile === undefined || backup === undefined) {
      ctx.warn(quarantineWarning(file, verdict.reason, movedTo));
      return { kind: 'missing' };
    }
    await writeAtomic(file, backup.text, { mode: STATE_FILE_MODE, guard: ctx.held.assertOwned });
    ctx.warn(quarantineWarning(file, verdict.reason, movedTo, backupFile));
    return { kind: 'ok', value: backup.value };
  } finally {
    closeSync(fd);
  }
}

/** The file's text; past the cap, the refusal: no file dogsled writes is that large (bounded-read.ts). */
function readAll(fd: number, file: string): string | FileTooLarge {
  try {
    return readFdBounded(fd);
  } catch (error) {
    if (error instanceof FileTooLarge) return error;
    throw fsFailure('read', file, error);
  }
}

function tooLarge(error: FileTooLarge): Read<never> {
  return { kind: 'corrupt', reason: error.message };
}

/** The backup's text and value when it is a valid record; anything else means no backup. */
async function readBackup<S extends RecordCheck>(
  backup: string,
  schema: S,
): Promise<{ text: string; value: Checked<S> } | undefined> {
  let text: string | undefined;
  try {
    text = readRegularNow(backup);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  const verdict = judge(text, schema);
  return verdict.kind === 'ok' ? { text, value: verdict.value } : undefined;
}

function judge<S extends RecordCheck>(text: string, schema: S): Read<Checked<S>> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: 'corrupt', reason: `not JSON: ${(error as Error).message}` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { kind: 'corrupt', reason: `schema: ${describeIssue(parsed.error)}` };
  return { kind: 'ok', value: parsed.data as Checked<S> };
}

/** The first issue, with its path: `reservations.0.id: Invalid input: expected string, received number`. */
function describeIssue(error: { issues: readonly CheckIssue[] }): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.map(String).join('.');
  return squeezedLine(where ? `${where}: ${issue.message}` : issue.message);
}
