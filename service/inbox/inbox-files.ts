// The inbox files of this host: inbox/<terminal>.json, one per Herdr terminal (its live file: what
// waits), read without a lock and changed only under the file's own lock through updateState; what
// settled and long texts are in inbox/<terminal>.d (settled.ts). Lock order: an inbox lock is taken
// alone, never inside another lock and never two at once (a notice to a sender is a second, separate
// update); only its own settled.json's lock is taken inside it. Only regular files are read: a
// directory, FIFO or symlink in their place is a one-line error naming the file, never a hang.

import { unlink } from 'node:fs/promises';
import { DogsledError, messageOf } from '../core/common/errors.js';
import { emptyInbox } from '../core/inbox/inbox.js';
import type { Inbox, InboxRecord } from '../core/inbox/inbox-types.js';
import { dirNames } from '../state/engine/dir-names.js';
import { guarded, relativeName } from '../state/engine/guarded.js';
import { withLock } from '../state/engine/lock.js';
import { readState, updateState } from '../state/engine/store.js';
import type { StateIO } from '../state/io.js';
import { InboxSchema } from '../state/schemas/inbox-schemas.js';
import { INBOX_SUFFIX, inboxFile, isSafeTerminalId } from './inbox-path.js';

export { inboxFile } from './inbox-path.js';

/** The terminal's inbox, or undefined when nothing was ever written to it (or it was corrupt). */
export async function readInbox(io: StateIO, terminal: string): Promise<Inbox | undefined> {
  const file = inboxFile(io, terminal);
  return guarded(io, file, () => readState(file, InboxSchema, io));
}

export interface InboxUpdate<R> {
  result: R;
  next?: Inbox | undefined;
}

/**
 * Read-modify-write of one inbox under its lock; `fn` sees an empty inbox when there is none yet.
 * `pane` is where the terminal is now, recorded for display.
 */
export async function updateInbox<R>(
  io: StateIO,
  terminal: string,
  pane: string | null,
  fn: (inbox: Inbox) => Promise<InboxUpdate<R>> | InboxUpdate<R>,
): Promise<R> {
  const file = inboxFile(io, terminal);
  return guarded(io, file, () =>
    updateState(file, InboxSchema, io, (current) => fn(current ?? emptyInbox(terminal, pane))),
  );
}

/**
 * Removes an inbox, its settled records and bodies included, when `disposable` still holds under its
 * lock for every record it has (a gone terminal's, once nothing in it is worth keeping).
 */
export async function removeInbox(
  io: StateIO,
  terminal: string,
  disposable: (records: readonly InboxRecord[]) => boolean,
): Promise<boolean> {
  const file = inboxFile(io, terminal);
  const { mergeRecords, readSettled, removeInboxDir } = await import('./settled.js');
  return guarded(io, file, () =>
    withLock(file, async () => {
      const current = await readState(file, InboxSchema, io);
      if (!disposable(mergeRecords(current, await readSettled(io, terminal)))) return false;
      // The directory first: a crash between the two leaves the live file, removed the next time.
      await removeInboxDir(io, terminal);
      await unlink(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      return true;
    }),
  );
}

/** The terminals that have an inbox file here (locks, quarantined and temp files left out). */
export async function inboxTerminals(io: Pick<StateIO, 'paths'>): Promise<string[]> {
  let names: string[];
  try {
    names = dirNames(io.paths.inbox) ?? [];
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    throw new DogsledError(
      `inbox: cannot list ${relativeName(io, io.paths.inbox)}: ${code ?? messageOf(error)}`,
      {
        cause: error,
      },
    );
  }
  return names
    .filter((name) => name.endsWith(INBOX_SUFFIX))
    .map((name) => name.slice(0, -INBOX_SUFFIX.length))
    .filter(isSafeTerminalId)
    .sort();
}
