// The rest of a terminal's inbox, beside its live file inbox/<terminal>.json, in inbox/<terminal>.d/:
// settled.json holds the records that were delivered or failed (kept a day for `inbox list`, within
// the terminal's cap), and <id>.txt the whole text of each record too long for the inbox file
// (core/inbox-space.ts). The live file holds what waits and what settled since the last compaction,
// so a hook's read never grows with the history.
// Every change here is made holding the live file's lock (lock order: the live file, then
// settled.json); readers take none. A record sits in the live file or in settled.json, in both for a
// moment after a crash (readers take it once, by id), and its body goes only after it left both.

import { readdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DogsledError, messageOf } from '../core/common/errors.js';
import type { CompactionPlan } from '../core/inbox/inbox-space.js';
import type { Inbox, InboxRecord } from '../core/inbox/inbox-types.js';
import { tempOwner } from '../state/engine/atomic-write.js';
import { guarded } from '../state/engine/guarded.js';
import { identityAlive, selfIdentity } from '../state/engine/liveness.js';
import { readRegular } from '../state/engine/regular-file.js';
import type { StateIO } from '../state/io.js';
import { SettledInboxSchema } from '../state/schemas/inbox-schemas.js';
import { BODY, bodyFile, compactWith, readSettledWith } from './inbox-bodies.js';
import { readInbox } from './inbox-files.js';
import { inboxDir } from './inbox-path.js';

export { dropBodies, storeRecord } from './inbox-bodies.js';
export { inboxDir } from './inbox-path.js';

/** The settled records of `terminal` (none without a file). */
export function readSettled(io: StateIO, terminal: string): Promise<InboxRecord[]> {
  return readSettledWith(io, terminal, SettledInboxSchema);
}

/** Every record of `terminal`, live and settled, each once. */
export async function readAllRecords(io: StateIO, terminal: string): Promise<InboxRecord[]> {
  const live = await readInbox(io, terminal);
  return mergeRecords(live, await readSettled(io, terminal));
}

/** Live and settled records, each once (the live copy when a crash left it in both). */
export function mergeRecords(live: Inbox | undefined, settled: readonly InboxRecord[]): InboxRecord[] {
  const records = new Map<string, InboxRecord>();
  for (const record of settled) records.set(record.id, record);
  for (const record of live?.records ?? []) records.set(record.id, record);
  return [...records.values()];
}

/** The whole text of `record`: its body file's when it has one (a body already gone: what is kept). */
export async function wholeText(io: StateIO, terminal: string, record: InboxRecord): Promise<string> {
  if (record.body === undefined) return record.text;
  const file = bodyFile(io, terminal, record.id);
  const text = await guarded(io, file, () => readRegular(file));
  return text ?? `${record.text}\n… (the rest of this message is no longer kept)`;
}

/** `records` with each text whole and no body pointer (for `inbox list`). */
export async function withWholeText(
  io: StateIO,
  terminal: string,
  records: readonly InboxRecord[],
): Promise<InboxRecord[]> {
  const whole: InboxRecord[] = [];
  for (const record of records) {
    if (record.body === undefined) whole.push(record);
    else {
      const { body: _body, ...rest } = record;
      whole.push({ ...rest, text: await wholeText(io, terminal, record) });
    }
  }
  return whole;
}

/**
 * Called holding the live file's lock, with the live `inbox` read under it: plans the compaction
 * and writes the settled file it makes (inbox-bodies.ts). `sweep` also removes body files that
 * belong to no record (a writer killed before its record).
 */
export async function compactLocked(
  io: StateIO,
  terminal: string,
  inbox: Inbox,
  options: { incoming?: number; sweep?: boolean } = {},
): Promise<CompactionPlan> {
  const plan = await compactWith(io, terminal, inbox, SettledInboxSchema, options.incoming ?? 0);
  if (plan.fits && options.sweep) await sweepBodies(io, terminal, [...plan.live, ...plan.settled]);
  return plan;
}

/** Body files no record names, and temp files of dead writers, go (called holding the live lock). */
async function sweepBodies(io: StateIO, terminal: string, kept: readonly InboxRecord[]): Promise<void> {
  const dir = inboxDir(io, terminal);
  const names = await readdir(dir).catch(() => [] as string[]);
  const named = new Set(kept.flatMap((record) => (record.body === undefined ? [] : [`${record.id}${BODY}`])));
  const host = selfIdentity().hostname;
  for (const name of names) {
    const temp = tempOwner(name, host);
    const orphan =
      temp !== undefined ? identityAlive(temp.writer) === false : name.endsWith(BODY) && !named.has(name);
    if (orphan) await unlink(join(dir, name)).catch(() => undefined);
  }
}

/** Removes a terminal's settled records and bodies (its live file is gone or going). */
export async function removeInboxDir(io: StateIO, terminal: string): Promise<void> {
  try {
    await rm(inboxDir(io, terminal), { recursive: true, force: true });
  } catch (error) {
    throw new DogsledError(`inbox: cannot remove ${terminal}.d: ${messageOf(error)}`, { cause: error });
  }
}
