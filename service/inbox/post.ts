// How the service posts a record into an inbox (a notice, a child's reply, a record a peer's outbox
// held): once per ref, whether the one posted before a crash still waits or has settled since, and
// with a long text in its own body file. A notice is never refused for space: it is what the
// service owes the reader, and the service makes no runaway ones.

import { appendRecord } from '../core/inbox/inbox.js';
import type { Inbox, InboxRecord } from '../core/inbox/inbox-types.js';
import type { StateIO } from '../state/io.js';
import { updateInbox } from './inbox-files.js';
import { readSettled, storeRecord } from './settled.js';

export interface Posted {
  /** The record in the inbox: the one posted now, or the one with the same ref posted before. */
  record: InboxRecord;
  added: boolean;
}

/**
 * Appends `record` to `terminal`'s inbox unless a record with its ref is there, live or settled.
 * `accept` may turn the inbox down as it is under the lock (undefined then, nothing written).
 */
export async function postRecord(
  io: StateIO,
  terminal: string,
  pane: string | null,
  record: InboxRecord,
  accept?: (inbox: Inbox) => boolean,
): Promise<Posted | undefined> {
  return updateInbox<Posted | undefined>(io, terminal, pane, async (inbox) => {
    if (accept !== undefined && !accept(inbox)) return { result: undefined };
    const live = appendRecord(inbox, record);
    if (!live.added) return { result: { record: live.record, added: false } };
    if (record.ref !== null) {
      const settled = (await readSettled(io, terminal)).find((r) => r.ref === record.ref);
      if (settled !== undefined) return { result: { record: settled, added: false } };
    }
    const stored = await storeRecord(io, terminal, record);
    return {
      result: { record: stored, added: true },
      next: { ...inbox, records: [...inbox.records, stored] },
    };
  });
}
