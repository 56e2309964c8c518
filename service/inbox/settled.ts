// The rest of a terminal's inbox, beside its live file inbox/<terminal>.json, in inbox/<terminal>.d/:
// settled.json holds the records that were delivered or failed (kept a day for `inbox list`, within
// the terminal's cap), and <id>.txt the whole text of each record too long for the inbox file
// (core/inbox-space.ts). The live file holds what waits and what settled since the last compaction,
// so a hook's read never grows with the history.
// Every change here is made holding the live file's lock (lock order: the live file, then
// settled.json); readers take none. A record sits in the live file or in settled.json, in both for a
// moment after a crash (readers take it once, by id), and its body goes only after it left both.

import { mkdir, readdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DogsledError, messageOf } from '../core/common/errors.js';
import {
  type CompactionPlan,
  changesSettled,
  compactionPlan,
  type StoredText,
  storedText,
} from '../core/inbox/inbox-space.js';
import type { Inbox, InboxRecord } from '../core/inbox/inbox-types.js';
import { tempOwner, writeAtomic } from '../state/engine/atomic-write.js';
import { guarded } from '../state/engine/guarded.js';
import { identityAlive, selfIdentity } from '../state/engine/liveness.js';
import { readRegular } from '../state/engine/regular-file.js';
import { readState, updateState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { STATE_DIR_MODE, STATE_FILE_MODE } from '../state/paths.js';
import { SettledInboxSchema } from '../state/schemas/inbox-schemas.js';
import { inboxFile, readInbox } from './inbox-files.js';

/** Record ids as newId makes them; a peer's record with any other id gets no file named by it. */
const RECORD_ID = /^[a-z]_[a-z0-9]{6,32}$/;
const BODY = '.txt';

/** inbox/<terminal>.d, beside the live file (whose name check covers it). */
export function inboxDir(io: Pick<StateIO, 'paths'>, terminal: string): string {
  return `${inboxFile(io, terminal).slice(0, -'.json'.length)}.d`;
}

function settledFile(io: Pick<StateIO, 'paths'>, terminal: string): string {
  return join(inboxDir(io, terminal), 'settled.json');
}

function bodyFile(io: Pick<StateIO, 'paths'>, terminal: string, id: string): string {
  if (!RECORD_ID.test(id)) throw new DogsledError(`inbox: record id "${id.slice(0, 40)}" cannot name a file`);
  return join(inboxDir(io, terminal), `${id}${BODY}`);
}

/** The settled records of `terminal` (none without a file). */
export async function readSettled(io: StateIO, terminal: string): Promise<InboxRecord[]> {
  const file = settledFile(io, terminal);
  return (await guarded(io, file, () => readState(file, SettledInboxSchema, io)))?.records ?? [];
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

/**
 * `record` as the inbox file keeps it: a long text's first part, with the whole written to its body
 * file (0600) first. Called holding the live file's lock, before the record is written there.
 */
export async function storeRecord(
  io: StateIO,
  terminal: string,
  record: InboxRecord,
  stored: StoredText = storedText(record.text),
): Promise<InboxRecord> {
  if (stored.body === undefined) return record;
  const file = bodyFile(io, terminal, record.id);
  await mkdir(inboxDir(io, terminal), { recursive: true, mode: STATE_DIR_MODE });
  await guarded(io, file, () => writeAtomic(file, record.text, { mode: STATE_FILE_MODE }));
  return { ...record, text: stored.text, body: stored.body };
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
 * (core/inbox-space.ts) and, when `incoming` bytes fit, writes the settled file it makes. The caller
 * then writes the plan's live records and, once that is written, calls dropBodies for the plan.
 * `sweep` also removes body files that belong to no record (a writer killed before its record).
 */
export async function compactLocked(
  io: StateIO,
  terminal: string,
  inbox: Inbox,
  options: { incoming?: number; sweep?: boolean } = {},
): Promise<CompactionPlan> {
  const file = settledFile(io, terminal);
  const before = await readSettled(io, terminal);
  const plan = compactionPlan(inbox.records, before, io.now(), options.incoming ?? 0);
  if (!plan.fits) return plan;
  if (changesSettled(plan, before.length)) {
    await mkdir(inboxDir(io, terminal), { recursive: true, mode: STATE_DIR_MODE });
    // A long text an older dogsled kept whole in the live file gets its body file on the way out.
    const settled: InboxRecord[] = [];
    for (const record of plan.settled) {
      const legacy = record.body === undefined && RECORD_ID.test(record.id);
      settled.push(legacy ? await storeRecord(io, terminal, record) : record);
    }
    plan.settled = settled;
    // Every writer holds the live lock, so what was read above is still what is there.
    await guarded(io, file, () =>
      updateState(file, SettledInboxSchema, io, () => ({
        result: undefined,
        next: { version: 1 as const, terminal, records: settled },
      })),
    );
  }
  if (options.sweep) await sweepBodies(io, terminal, [...plan.live, ...plan.settled]);
  return plan;
}

/** Removes the body files of records a written plan dropped for good. */
export async function dropBodies(
  io: StateIO,
  terminal: string,
  dropped: readonly InboxRecord[],
): Promise<void> {
  for (const record of dropped) {
    if (record.body === undefined || !RECORD_ID.test(record.id)) continue;
    await unlink(bodyFile(io, terminal, record.id)).catch(() => undefined);
  }
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
