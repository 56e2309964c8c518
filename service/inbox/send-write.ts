// The write of `send` (send.ts), once its target and sender are known: under the target inbox's
// lock it is refused when nothing reads there or it is full, compacts (settled records out, the
// oldest evicted for room), is refused with nothing written when the message does not fit beside
// what waits, stores a long text's body file and appends the record. The files are checked with
// what the caller passes: the full path its zod schemas, the lean `send` (actions/send-glance.ts)
// hand checks equal to them (state/checks/inbox-check.ts), so both write through this one code.

import { DogsledError } from '../core/common/errors.js';
import { emptyInbox, type InboxKind, pendingRecord, sendRefusal } from '../core/inbox/inbox.js';
import { INBOX_MAX_BYTES, recordBytes, storedText } from '../core/inbox/inbox-space.js';
import type { Inbox, InboxRecord, InboxSender } from '../core/inbox/inbox-types.js';
import { guarded } from '../state/engine/guarded.js';
import { newId } from '../state/engine/ids.js';
import type { RecordCheck } from '../state/engine/record-check.js';
import { updateState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { compactWith, dropBodies, type SettledCheck, storeRecord } from './inbox-bodies.js';
import { inboxFile } from './inbox-path.js';
import type { Whereabouts } from './whereabouts.js';

export interface InboxChecks {
  inbox: RecordCheck<Inbox>;
  settled: SettledCheck;
}

/** Sizes in a refusal, to a tenth of a MiB: `28.0 MiB`. */
function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Writes the record into `to`'s inbox; returns it and the harness that reads there. */
export async function writeSent(
  io: StateIO,
  checks: InboxChecks,
  to: Whereabouts,
  message: { kind: InboxKind; sender: InboxSender; text: string },
): Promise<{ record: InboxRecord; harness: string | undefined }> {
  const label = to.name ? `${to.name} (${to.pane})` : to.pane;
  // Measured once (a 4 MiB text is cleaned to count its characters): stored below as measured here.
  const stored = storedText(message.text);
  const weight = recordBytes(stored);
  const dropped: InboxRecord[] = [];
  let harness: string | undefined;
  const file = inboxFile(io, to.terminal);
  const record = await guarded(io, file, () =>
    updateState(file, checks.inbox, io, async (current) => {
      const inbox = current ?? emptyInbox(to.terminal, to.pane);
      harness = inbox?.reader?.harness;
      const refusal = sendRefusal(inbox);
      if (refusal === 'no reader') {
        throw new DogsledError(
          `send: ${label} has no inbox reader: no dogsled hook or extension has run in its harness yet; nothing was sent`,
        );
      }
      if (refusal === 'full') {
        throw new DogsledError(
          `send: the inbox of ${label} is full: its reader has not taken what waits there`,
        );
      }
      const plan = await compactWith(io, to.terminal, inbox, checks.settled, weight);
      if (!plan.fits) {
        throw new DogsledError(
          `send: no room in the inbox of ${label}: ${mib(plan.waitingBytes)} wait undelivered there and this message needs ${mib(weight)}, over the ${mib(INBOX_MAX_BYTES)} an inbox holds; nothing was sent`,
        );
      }
      dropped.push(...plan.dropped);
      const added = await storeRecord(
        io,
        to.terminal,
        pendingRecord(
          { id: newId('m'), kind: message.kind, sender: message.sender, text: message.text },
          io.now(),
        ),
        stored,
      );
      return { result: added, next: { ...inbox, pane: to.pane, records: [...plan.live, added] } };
    }),
  );
  // Written: the records this send dropped for room (or for age) lose their bodies only now.
  await dropBodies(io, to.terminal, dropped);
  return { record, harness };
}
