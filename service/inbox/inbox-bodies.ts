// The part of an inbox's directory (inbox/<terminal>.d, settled.ts) a write needs, with the check of
// settled.json given by the caller: the full path passes its zod schema (settled.ts), the lean
// `send` a hand check equal to it (state/checks/inbox-check.ts), so both compact, store long texts
// and drop bodies through this one code and load no zod for it.

import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DogsledError } from '../core/common/errors.js';
import {
  type CompactionPlan,
  changesSettled,
  compactionPlan,
  type StoredText,
  storedText,
} from '../core/inbox/inbox-space.js';
import type { Inbox, InboxRecord, SettledInbox } from '../core/inbox/inbox-types.js';
import { writeAtomic } from '../state/engine/atomic-write.js';
import { guarded } from '../state/engine/guarded.js';
import type { RecordCheck } from '../state/engine/record-check.js';
import { readState, updateState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { STATE_DIR_MODE, STATE_FILE_MODE } from '../state/paths.js';
import { inboxDir, settledFile } from './inbox-path.js';

/** Record ids as newId makes them; a peer's record with any other id gets no file named by it. */
export const RECORD_ID = /^[a-z]_[a-z0-9]{6,32}$/;
export const BODY = '.txt';

/** What settled.json is read and written with: its zod schema, or the hand check equal to it. */
export type SettledCheck = RecordCheck<SettledInbox>;

export function bodyFile(io: Pick<StateIO, 'paths'>, terminal: string, id: string): string {
  if (!RECORD_ID.test(id)) throw new DogsledError(`inbox: record id "${id.slice(0, 40)}" cannot name a file`);
  return join(inboxDir(io, terminal), `${id}${BODY}`);
}

/** The settled records of `terminal` (none without a file). */
export async function readSettledWith(
  io: StateIO,
  terminal: string,
  check: SettledCheck,
): Promise<InboxRecord[]> {
  const file = settledFile(io, terminal);
  return (await guarded(io, file, () => readState(file, check, io)))?.records ?? [];
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

/**
 * Called holding the live file's lock, with the live `inbox` read under it: plans the compaction
 * (core/inbox-space.ts) and, when `incoming` bytes fit, writes the settled file it makes. The caller
 * then writes the plan's live records and, once that is written, calls dropBodies for the plan.
 */
export async function compactWith(
  io: StateIO,
  terminal: string,
  inbox: Inbox,
  check: SettledCheck,
  incoming: number,
): Promise<CompactionPlan> {
  const file = settledFile(io, terminal);
  const before = await readSettledWith(io, terminal, check);
  const plan = compactionPlan(inbox.records, before, io.now(), incoming);
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
      updateState(file, check, io, () => ({
        result: undefined,
        next: { version: 1 as const, terminal, records: settled },
      })),
    );
  }
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
