// What the headless backend knows about its detached process groups, read from /proc on Linux.
// A group is named by its leader's pid plus the leader's start time, so a pid the kernel reused for
// an unrelated process never passes for the job (a pgid cannot be reused while its group lives).
// Without /proc (macOS) only the leader's liveness is known, through signal 0.

import { readdir, readFile, readlink } from 'node:fs/promises';
import type { ProcessEntry } from './records.js';

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  pgrp: number;
  /** Clock ticks after boot (field 22): with the pid, identifies one process for its lifetime. */
  start: number;
}

export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = text.slice(close + 2).split(' ');
  const pid = Number(text.slice(0, open).trim());
  // Fields after the comm start at field 3 (state), so field N is at index N - 3.
  const pgrp = Number(fields[2]);
  const start = Number(fields[19]);
  if (!Number.isInteger(pid) || !Number.isInteger(pgrp) || !Number.isFinite(start)) return undefined;
  return { pid, comm: text.slice(open + 1, close), state: fields[0] ?? '?', pgrp, start };
}

export async function procStat(pid: number): Promise<ProcStat | undefined> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

export const hasProc = async (): Promise<boolean> => (await procStat(process.pid)) !== undefined;

/** Live (non-zombie) members of process group `pgid`; empty when its leader is another process now. */
export async function groupMembers(pgid: number, leaderStart: number | undefined): Promise<ProcStat[]> {
  const names = await readdir('/proc').catch(() => [] as string[]);
  const members: ProcStat[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await procStat(Number(name));
    if (!stat || stat.pgrp !== pgid || stat.state === 'Z') continue;
    if (stat.pid === pgid && leaderStart !== undefined && stat.start !== leaderStart) return [];
    members.push(stat);
  }
  return members.sort((a, b) => a.pid - b.pid);
}

/** A group member in the shape of Herdr's foreground process entries. */
export async function processRecord(stat: ProcStat): Promise<ProcessEntry> {
  const record: ProcessEntry = { pid: stat.pid, name: stat.comm };
  const raw = await readFile(`/proc/${stat.pid}/cmdline`, 'utf8').catch(() => '');
  if (raw !== '') {
    record.argv = raw.replace(/\0$/, '').split('\0');
    record.cmdline = record.argv.join(' ');
  }
  const cwd = await readlink(`/proc/${stat.pid}/cwd`).catch(() => undefined);
  if (cwd !== undefined) record.cwd = cwd;
  return record;
}

/** Whether `pid` exists, by signal 0 (EPERM means it exists but is not ours). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
