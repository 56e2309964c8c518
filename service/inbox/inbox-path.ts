// Where a terminal's inbox files are (inbox/<terminal>.json, and its directory inbox/<terminal>.d),
// and which terminal ids may name one: a module of its own, so the lean hook (pending-glance.ts)
// finds an inbox, and the lean send (send-now.ts) its settled file, without the store's readers.

import { join } from 'node:path';
import { DogsledError } from '../core/common/errors.js';
import { clip, plainLine } from '../core/text/clean.js';
import type { StateIO } from '../state/io.js';

/**
 * Herdr's terminal ids are `term_<hex>`, tmux's `%<pane>@<server pid>` (both safe as file names);
 * anything that could leave the directory is refused.
 */
const TERMINAL_ID = /^(?:[A-Za-z0-9][A-Za-z0-9_.-]{0,127}|%\d{1,12}@\d{1,12})$/;
export const INBOX_SUFFIX = '.json';

export function isSafeTerminalId(terminal: string): boolean {
  return TERMINAL_ID.test(terminal) && !terminal.includes('..');
}

export function inboxFile(io: Pick<StateIO, 'paths'>, terminal: string): string {
  if (!isSafeTerminalId(terminal)) {
    throw new DogsledError(`inbox: terminal id "${clip(plainLine(terminal), 80)}" is not a safe file name`);
  }
  return join(io.paths.inbox, `${terminal}${INBOX_SUFFIX}`);
}

/** inbox/<terminal>.d, beside the live file (whose name check covers it). */
export function inboxDir(io: Pick<StateIO, 'paths'>, terminal: string): string {
  return `${inboxFile(io, terminal).slice(0, -INBOX_SUFFIX.length)}.d`;
}

/** inbox/<terminal>.d/settled.json: the records read or failed, kept a day (settled.ts). */
export function settledFile(io: Pick<StateIO, 'paths'>, terminal: string): string {
  return join(inboxDir(io, terminal), 'settled.json');
}
