// The records readState judged valid, kept with the identity of the file they were read from, so a
// file that has not changed since is not read, parsed and validated again: the service reads a
// dozen state files every tick, most of them unchanged for hours (done.json, queue.json,
// items.json...). A kept record is used only while a stat of the path shows the same file:
// - same device and inode: every dogsled write is a rename of a new file over the old, so any
//   write replaces the inode, however alike size and times are;
// - same size, mtime and ctime to the nanosecond: an edit in place (an editor, a restore) moves
//   them, and so does a chmod (ctime), so an unreadable file is read, and refused, again;
// - and only a file whose ctime was already older than SETTLED_MS when it was read: the kernel
//   stamps files from a coarse clock (a few milliseconds), so two changes within one stamp look
//   alike, and a freed inode can come back at once with the same size; a change after a settled
//   read gets a later stamp. A file rewritten every tick is therefore never kept.
// Anything but a regular file at the path is never a hit: the full read refuses it as before.
// Callers get a copy each time (structuredClone), so one that changes its record changes nothing
// kept. The memo is per process and bounded (MAX_ENTRIES), and off unless the process turns it on
// (keepUnchangedRecords): only the service reads the same files again and again; a command reads
// each once, and keeping it would be a stat and a copy for nothing.

import type { BigIntStats } from 'node:fs';
import { statSync } from 'node:fs';

/** How old a file's last change must be, when read, for its record to be kept. */
export const SETTLED_MS = 1_000;
/** More distinct files than any host keeps read this way; past it the memo starts over. */
const MAX_ENTRIES = 512;

interface Kept {
  identity: BigIntStats;
  value: unknown;
}

/** Per schema (a path can be read by more than one: a full and a first-fields check), per path. */
const kept = new Map<object, Map<string, Kept>>();
let entries = 0;
let on = false;

/** Turns the memo on for this process (the service, main.ts), or off and empty. */
export function keepUnchangedRecords(keep = true): void {
  on = keep;
  if (!keep) forgetAll();
}

/** Whether readState should take the identity its reads need to be kept. */
export function keepingRecords(): boolean {
  return on;
}

/** A copy of the record kept for `file` under `schema`, while the file there is the one it came from. */
export function keptRecord(file: string, schema: object): { value: unknown } | undefined {
  if (!on) return undefined;
  const byPath = kept.get(schema);
  const entry = byPath?.get(file);
  if (byPath === undefined || entry === undefined) return undefined;
  const now = statSync(file, { bigint: true, throwIfNoEntry: false });
  if (now === undefined || !now.isFile() || !sameFile(now, entry.identity)) {
    byPath.delete(file);
    entries -= 1;
    return undefined;
  }
  return { value: structuredClone(entry.value) };
}

/**
 * Keeps `value`, the record just read from `file` whose descriptor's stat, taken before the read,
 * was `identity`, if the file had settled by then (`nowMs`, the wall clock the kernel stamps with).
 */
export function keepRecord(
  file: string,
  schema: object,
  identity: BigIntStats,
  value: unknown,
  nowMs: number,
): void {
  if (!on || Number(identity.ctimeNs / 1_000_000n) > nowMs - SETTLED_MS) return;
  let copy: unknown;
  try {
    copy = structuredClone(value);
  } catch {
    return;
  }
  if (entries >= MAX_ENTRIES) forgetAll();
  let byPath = kept.get(schema);
  if (byPath === undefined) {
    byPath = new Map();
    kept.set(schema, byPath);
  }
  if (!byPath.has(file)) entries += 1;
  byPath.set(file, { identity, value: copy });
}

/** Drops every kept record (a test's fresh start; the cap). */
export function forgetAll(): void {
  kept.clear();
  entries = 0;
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs
  );
}
