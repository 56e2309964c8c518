// Is this still the job's process? A job record names its wrapper and its process group by pid plus
// the /proc start time (clock ticks) of that pid, so a pid the kernel reused for an unrelated process
// is never taken for the job, and never signalled. Without /proc (macOS) the start time cannot be
// read: liveness falls back to signal 0, and a group is signalled only when the record carries no
// start time either (exec recorded none there), accepting the pid-reuse risk that platform leaves.

import { readFileSync } from 'node:fs';
import { groupMembers, parseProcStat, pidAlive } from '../terminal/proc.js';

export type GroupSignal = 'signalled' | 'gone';

/**
 * Whether the process `pid` that started at `start` still runs. A zombie counts as dead: it has
 * exited and only waits to be reaped. A null start (unknown) trusts the pid alone. Synchronous (one
 * small /proc read) so it can be re-checked inside a record's locked update.
 */
export function processAlive(pid: number, start: number | null | undefined): boolean {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return procMissing() ? pidAlive(pid) : false;
  }
  const stat = parseProcStat(text);
  if (!stat || stat.state === 'Z') return false;
  return start === null || start === undefined || stat.start === start;
}

/**
 * Whether the process group led by `pgid` (leader started at `start`) still has live members. The
 * leader may have exited while its children live on: the kernel does not reuse a pid that still
 * names a group, so members whose pgrp is `pgid` are ours unless a process with a different start
 * time now holds that pid (then the group we knew is gone).
 */
export async function groupAlive(pgid: number, start: number | null | undefined): Promise<boolean> {
  if (procMissing()) return start === null || start === undefined ? groupExists(pgid) : false;
  return (await groupMembers(pgid, start ?? undefined)).length > 0;
}

/**
 * Sends `signal` to the whole group, only after checking it is the job's group. A group that is
 * gone, or whose pgid now belongs to another process, is 'gone' and nothing is signalled.
 */
export async function signalGroup(
  pgid: number,
  start: number | null | undefined,
  signal: NodeJS.Signals,
): Promise<GroupSignal> {
  // pgid 0 or 1 would signal our own group or every process: never a job's group.
  if (!Number.isInteger(pgid) || pgid <= 1) return 'gone';
  if (!(await groupAlive(pgid, start))) return 'gone';
  try {
    process.kill(-pgid, signal);
    return 'signalled';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'gone';
    throw error;
  }
}

let noProc: boolean | undefined;

/** True on a system without /proc (macOS), decided once per process. */
function procMissing(): boolean {
  if (noProc === undefined) {
    try {
      readFileSync('/proc/self/stat');
      noProc = false;
    } catch {
      noProc = true;
    }
  }
  return noProc;
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
