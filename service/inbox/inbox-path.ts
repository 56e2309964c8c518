// Where a terminal's inbox file is (inbox/<terminal>.json), and which terminal ids may name one: a
// module of its own, so the lean hook (pending-glance.ts) finds an inbox without the store's readers.

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
