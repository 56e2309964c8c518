// What runs in a tmux pane, from the process table: the pane's terminal's foreground process group
// (the pane process's tpgid) and its members, and the environment the pane's shell started with, so
// an agent launched in place of that shell gets the same one. Without /proc (macOS) the answers are
// empty and the caller falls back to what tmux says.

import type { ForegroundProcess } from '../../core/cleanup/pane-processes.js';
import { KNOWN_SHELLS } from '../../core/cleanup/pane-rule.js';
import { groupMembers, readStat, startEnvironment } from '../../process/process-table.js';
import { foregroundRecord } from '../foreground.js';

export { startEnvironment };

const isShell = (name: string): boolean => KNOWN_SHELLS.has(name.replace(/^-/, ''));

/** The foreground process group of the pane's terminal, or undefined when unreadable. */
export async function foregroundGroup(panePid: number): Promise<number | undefined> {
  const tpgid = (await readStat(panePid))?.tpgid;
  return tpgid !== undefined && tpgid > 0 ? tpgid : undefined;
}

export async function foregroundProcesses(
  panePid: number,
): Promise<{ pgid: number | undefined; processes: ForegroundProcess[] }> {
  const pgid = await foregroundGroup(panePid);
  if (pgid === undefined) return { pgid, processes: [] };
  const members = await groupMembers(pgid, undefined);
  return { pgid, processes: await Promise.all(members.map(foregroundRecord)) };
}

/**
 * Whether the pane holds a shell at its prompt and nothing else: the shell is the foreground group
 * and alone in it. Unknown (no /proc): tmux's current command must be a shell.
 */
export async function shellAvailable(panePid: number, currentCommand: string): Promise<boolean> {
  const pgid = await foregroundGroup(panePid);
  if (pgid === undefined) return isShell(currentCommand);
  if (pgid !== panePid) return false;
  const members = await groupMembers(pgid, undefined);
  return members.length === 1 && isShell(members[0]?.comm ?? '');
}
