// The hooks' debug log (`hooks.log` in the state dir): a hook never prints a failure its harness
// would show (spec: hook failures exit successfully without output), so a hook registered wrongly
// (an unknown --harness, --event or flag in a plugin) leaves one line here instead, for whoever
// wonders why a hook does nothing. Bounded: past 64 KiB the file moves to hooks.log.1 (the one
// before is dropped). Writing it never fails the hook.

import { mkdir, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { squeezedLine } from '../core/text/clean.js';
import { openAppendRegular } from '../state/engine/regular-file.js';
import { STATE_DIR_MODE, STATE_FILE_MODE } from '../state/paths.js';

export const HOOKS_LOG = 'hooks.log';
/** A log a person reads, not an archive: a few hundred lines. */
const HOOKS_LOG_MAX_BYTES = 64 * 1024;

/** Appends `<ISO time> <what>` to `<stateDir>/hooks.log`; any trouble is swallowed. */
export async function logHookProblem(stateDir: string, what: string, nowMs: number): Promise<void> {
  const file = join(stateDir, HOOKS_LOG);
  try {
    await mkdir(stateDir, { recursive: true, mode: STATE_DIR_MODE });
    const size = (await stat(file).catch(() => undefined))?.size ?? 0;
    if (size > HOOKS_LOG_MAX_BYTES) await rename(file, `${file}.1`);
    const handle = await openAppendRegular(file, STATE_FILE_MODE);
    try {
      await handle.write(`${new Date(nowMs).toISOString()} ${squeezedLine(what, 400)}\n`);
    } finally {
      await handle.close();
    }
  } catch {
    // A debug log that cannot be written (a directory in its place, a full disk) says nothing.
  }
}
