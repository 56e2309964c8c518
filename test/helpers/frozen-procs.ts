// The processes tests saw stop themselves inside a lock (frozen-lock.ts), kept apart from it so the
// setup file every test file runs (temp-cleanup.ts) loads no more than this.

import { readFile } from 'node:fs/promises';

/** The fields of /proc/PID/stat past the command name (which may hold spaces and parentheses). */
export async function statFields(pid: number): Promise<string[]> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Processes seen stopped in a lock, by pid, with their start time (a pid is reused). */
export const frozen = new Map<number, string>();

/**
 * Kills each process a test of this file saw stop itself that is still stopped (a test that failed
 * before its SIGCONT): left alone it would hold its lock, and its sandbox, past the file. Run after
 * the file's own hooks (test/helpers/temp-cleanup.ts).
 */
export async function killStillFrozen(): Promise<number[]> {
  const killed: number[] = [];
  for (const [pid, started] of frozen) {
    frozen.delete(pid);
    const fields = await statFields(pid);
    if (fields[0] !== 'T' || fields[19] !== started) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return killed;
}
