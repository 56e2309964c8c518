// What the Pi extension (plugins/pi) asks of the service inside Pi's own process; every verb it asks
// the installed binary (dogsled-call.ts). Its pane and dogsled's state dir as its environment says
// (the CLI's own rules: HERDR_PANE_ID or TMUX_PANE, DOGSLED_STATE, XDG_STATE_HOME), the socket of the
// Herdr that started it (to tell whether the board opens in Herdr), the timer its inbox reader wakes
// at a lease's end with (any length), and its pane's todo publication (spec, "Pi"):
// todo-lines/<pane-hash>.json, the file the sidebar's read (sidebar-state.ts) shows, written
// atomically (temp file, fsync, rename) so a reader never sees half of it.

import { createHash } from 'node:crypto';
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomic } from '../state/engine/atomic-write.js';

export { stateDirFrom } from '../state/paths.js';
export { callerPane, ownSocket } from '../terminal/herdr/herdr-env.js';
export { type LongTimer, longTimeout } from '../time/timers.js';

/**
 * The pane's publication in `stateDir`: 16 hex digits of SHA-256 of the pane id, the name
 * service/state/records/sidebar-files.ts reads (its zod schemas stay out of Pi's bundle).
 */
export function todoLinesPath(stateDir: string, pane: string): string {
  return join(stateDir, 'todo-lines', `${createHash('sha256').update(pane).digest('hex').slice(0, 16)}.json`);
}

/** Replaces the pane's publication with `lines` (already made escape-free and bounded). */
export async function publishTodoLines(stateDir: string, pane: string, lines: object): Promise<void> {
  await mkdir(join(stateDir, 'todo-lines'), { recursive: true, mode: 0o700 });
  await writeAtomic(todoLinesPath(stateDir, pane), `${JSON.stringify(lines)}\n`, { mode: 0o600 });
}

/** The session ended or its todos went away: the pane's publication goes with them. */
export async function removeTodoLines(stateDir: string, pane: string): Promise<void> {
  await unlink(todoLinesPath(stateDir, pane)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}
