// The write of `send` done at once (state/engine/update-now.ts) in its common case, for the lean
// `send` (actions/send-glance.ts): the inbox's lock free, a reader registered with room for the
// record, a text short enough to need no body file, and nothing for compaction to move or drop. The
// record and the file's next value are made by the same rules as the full write (send-write.ts), so
// the bytes written are the same, and synced as the store syncs them. Anything else (the lock held,
// a file in doubt, a refusal, a body file, settled.json to change) is undefined with nothing
// written, and the caller runs the full write, which waits, compacts, stores and words its refusals:
// it loads node:fs/promises and the store, most of what `send` cost above a Node start.

import { emptyInbox, type InboxKind, pendingRecord, sendRefusal } from '../core/inbox/inbox.js';
import { changesSettled, compactionPlan, recordBytes, storedText } from '../core/inbox/inbox-space.js';
import type { InboxRecord, InboxSender } from '../core/inbox/inbox-types.js';
import { InboxCheck, SettledInboxCheck } from '../state/checks/inbox-check.js';
import { newId } from '../state/engine/ids.js';
import { DOUBT, readNow, updateNow } from '../state/engine/update-now.js';
import type { StateIO } from '../state/io.js';
import { backupOf, STATE_FILE_MODE } from '../state/paths.js';
import { inboxFile, settledFile } from './inbox-path.js';
import type { Whereabouts } from './whereabouts.js';

/** The record written into `to`'s inbox and the harness that reads there, or undefined (see above). */
export function sendNow(
  io: StateIO,
  to: Whereabouts,
  message: { kind: InboxKind; sender: InboxSender; text: string },
): { record: InboxRecord; harness: string | undefined } | undefined {
  const stored = storedText(message.text);
  if (stored.body !== undefined) return undefined;
  const file = inboxFile(io, to.terminal);
  const options = { mode: STATE_FILE_MODE, durable: true, backup: backupOf(file) };
  const done = updateNow(file, InboxCheck, options, (current) => {
    const inbox = current ?? emptyInbox(to.terminal, to.pane);
    if (sendRefusal(inbox) !== null) return { result: undefined };
    // Read under the live file's lock, as compactWith reads it: every writer of it holds that lock.
    const settled = readNow(settledFile(io, to.terminal), SettledInboxCheck);
    if (settled === DOUBT) return { result: undefined };
    const before = settled?.records ?? [];
    const plan = compactionPlan(inbox.records, before, io.now(), recordBytes(stored));
    if (!plan.fits || changesSettled(plan, before.length)) return { result: undefined };
    const record = pendingRecord(
      { id: newId('m'), kind: message.kind, sender: message.sender, text: message.text },
      io.now(),
    );
    const sent = { record, harness: inbox.reader?.harness };
    return { result: sent, next: { ...inbox, pane: to.pane, records: [...plan.live, record] } };
  });
  return done?.result;
}
