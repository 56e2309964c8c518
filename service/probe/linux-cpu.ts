// Linux CPU facts from /proc: cumulative tick counters (busy is the difference of two readings,
// see service/core/placement/cpu-busy.ts), the number of CPUs the kernel reports, and the 1-minute load.
// Parsers are pure; `linuxCpu` only reads the two files.

import type { CpuTicks } from '../core/placement/cpu-busy.js';
import { measurementFailed, type ReadText } from './proc-reader.js';

export const PROC_STAT = '/proc/stat';
export const PROC_LOADAVG = '/proc/loadavg';

export interface LinuxCpu {
  cpu_ticks: CpuTicks;
  cores: number;
  load1: number;
}

/** Aggregate ticks and the number of `cpuN` lines of a /proc/stat text. */
export function parseHostCpuStat(text: string): { cpu_ticks: CpuTicks; cores: number } {
  let aggregate: string[] | undefined;
  let cores = 0;
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[0] === 'cpu') aggregate = fields.slice(1);
    else if (/^cpu\d+$/.test(fields[0] ?? '')) cores += 1;
  }
  if (!aggregate) throw measurementFailed(PROC_STAT, 'no aggregate cpu line');
  // user nice system idle iowait irq softirq steal [guest guest_nice]; steal exists since 2.6.11,
  // so fewer columns means a file we do not understand, not an old kernel worth guessing for.
  if (aggregate.length < 8) {
    throw measurementFailed(
      PROC_STAT,
      `aggregate cpu line has ${aggregate.length} columns, expected at least 8`,
    );
  }
  const ticks = aggregate.slice(0, 8).map((field) => {
    if (!/^\d+$/.test(field)) {
      throw measurementFailed(PROC_STAT, `aggregate cpu line has non-numeric "${field}"`);
    }
    return Number(field);
  });
  if (cores === 0) throw measurementFailed(PROC_STAT, 'no per-cpu lines');
  // guest and guest_nice (columns 9 and 10) are already inside user and nice: adding them would
  // count that time twice.
  return {
    cpu_ticks: { total: ticks.reduce((sum, t) => sum + t, 0), idle: ticks[3]! + ticks[4]! },
    cores,
  };
}

/** The 1-minute load average, the first field of /proc/loadavg. */
export function parseLoadavg(text: string): number {
  const first = text.trim().split(/\s+/)[0] ?? '';
  const load1 = /^\d+(\.\d+)?$/.test(first) ? Number(first) : Number.NaN;
  if (!Number.isFinite(load1)) throw measurementFailed(PROC_LOADAVG, `unparseable load "${first}"`);
  return load1;
}

export async function linuxCpu(read: ReadText): Promise<LinuxCpu> {
  const [stat, loadavg] = await Promise.all([read(PROC_STAT), read(PROC_LOADAVG)]);
  if (stat === undefined) throw measurementFailed(PROC_STAT, 'missing');
  if (loadavg === undefined) throw measurementFailed(PROC_LOADAVG, 'missing');
  return { ...parseHostCpuStat(stat), load1: parseLoadavg(loadavg) };
}
