// Is this still the job's process group? A job record names its wrapper and its process group by
// pid plus start time (service/process/process-table.ts), so a pid the kernel reused for an unrelated process
// is never taken for the job, and never signalled. Without /proc (macOS) the start time cannot be
// read: a group is signalled only when the record carries no start time either (exec recorded none
// there), accepting the pid-reuse risk that platform leaves.

import { groupMembers, hasProc } from '../process/process-table.js';

export type GroupSignal = 'signalled' | 'gone';

/**
 * Whether the process group led by `pgid` (leader started at `start`) still has live members. The
 * leader may have exited while its children live on: the kernel does not reuse a pid that still
 * names a group, so members whose pgrp is `pgid` are ours unless a process with a different start
 * time now holds that pid (then the group we knew is gone).
 */
export async function groupAlive(pgid: number, start: number | null | undefined): Promise<boolean> {
  if (!hasProc()) return start === null || start === undefined ? groupExists(pgid) : false;
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

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
