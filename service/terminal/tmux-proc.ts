// What runs in a tmux pane, from /proc: the pane's terminal's foreground process group (field 8 of
// the pane process's stat, tpgid) and its members, and the environment the pane's shell started
// with, so an agent launched in place of that shell gets the same one. Without /proc (macOS) the
// answers are empty and the caller falls back to what tmux says.

import { readFile } from 'node:fs/promises';
import { groupMembers, processRecord } from './proc.js';
import type { ProcessEntry } from './records.js';

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'fish', 'ash', 'tcsh', 'csh']);

/** The foreground process group of the pane's terminal, or undefined when unreadable. */
export async function foregroundGroup(panePid: number): Promise<number | undefined> {
  const text = await readFile(`/proc/${panePid}/stat`, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const tpgid = Number(fields[5]);
  return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : undefined;
}

export async function foregroundProcesses(
  panePid: number,
): Promise<{ pgid: number | undefined; processes: ProcessEntry[] }> {
  const pgid = await foregroundGroup(panePid);
  if (pgid === undefined) return { pgid, processes: [] };
  const members = await groupMembers(pgid, undefined);
  return { pgid, processes: await Promise.all(members.map(processRecord)) };
}

/**
 * Whether the pane holds a shell at its prompt and nothing else: the shell is the foreground group
 * and alone in it. Unknown (no /proc): tmux's current command must be a shell.
 */
export async function shellAvailable(panePid: number, currentCommand: string): Promise<boolean> {
  const pgid = await foregroundGroup(panePid);
  if (pgid === undefined) return SHELLS.has(currentCommand.replace(/^-/, ''));
  if (pgid !== panePid) return false;
  const members = await groupMembers(pgid, undefined);
  return members.length === 1 && SHELLS.has((members[0]?.comm ?? '').replace(/^-/, ''));
}

/** The environment the process started with, or undefined when unreadable. */
export async function startEnvironment(pid: number): Promise<Record<string, string> | undefined> {
  const raw = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => undefined);
  if (raw === undefined) return undefined;
  const env: Record<string, string> = {};
  for (const entry of raw.split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}
