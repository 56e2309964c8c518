// Doctor's report-only hot processes: above 100% CPU and outside every Herdr pane's ancestry, found
// in the host's process table (service/process/process-table.ts). A process is named by its program (comm),
// never by its arguments, which may hold secrets. An unreadable table is an answer of its own: the
// loss rule treats it as a hold, and doctor reports it.

import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../core/common/errors.js';
import { squeezedLine } from '../core/text/clean.js';
import {
  type CpuTime,
  type ProcessEntry,
  type ProcessTable,
  readCpuTime,
  readProcessTable,
} from '../process/process-table.js';

/** Report-only threshold (spec: "Processes above 100% CPU"): more than one core's worth. */
export const HOT_CPU_PERCENT = 100;
/** The window of a sample that runs beside no other work. */
export const CPU_SAMPLE_MS = 1_000;
/**
 * The shortest window of a sample that runs beside other work (`until`) where CPU time is counted in
 * clock ticks (macOS's `ps`, a Linux without per-thread times): the stat line's utime and stime are
 * each cut down to a 10 ms tick, so a quarter second keeps the answer within a few percent.
 */
export const CPU_SAMPLE_MIN_MS = 250;
/**
 * The same where every candidate's threads are counted in nanoseconds (Linux's schedstat, see
 * `readCpuTime`): a thread running while it is read lags by less than one scheduler tick (4 ms at
 * HZ 250, 10 ms at HZ 100), so a tenth of a second is as precise as the quarter second of ticks on
 * any kernel, and the window is otherwise the survey's own.
 */
export const PRECISE_SAMPLE_MIN_MS = 100;
/** USER_HZ: the stat line's clock tick, 10 ms on every Linux architecture. */
const TICK_NS = 10_000_000;
/** Processes read in one synchronous slice before the event loop gets a turn. */
const READ_SLICE = 32;
/** pidusage's memory of a pid, for a window that lasts as long as the work beside it. */
const OPEN_WINDOW_MAXAGE_MS = 6 * 60 * 60_000;

export interface HotProcess {
  pid: number;
  name: string;
  cpu_percent: number;
}

export interface HotProcesses {
  processes: HotProcess[];
  error?: string;
}

export interface HotOptions {
  /** Root processes of the Herdr panes: work below them is the panes' own. */
  paneRootPids: readonly number[];
  /** This process, never reported. */
  ownPid: number;
  /** A table already read for this pass; read afresh when absent. */
  table?: ProcessTable;
  /**
   * A fixture /proc to read (tests): the table, when not given, and the CPU times. Without it, the
   * host's /proc, or on macOS `ps` (the table) and pidusage (CPU).
   */
  procRoot?: string;
  /**
   * The window; with `until`, its shortest length. By default `CPU_SAMPLE_MS`, and with `until`
   * `PRECISE_SAMPLE_MIN_MS` or `CPU_SAMPLE_MIN_MS` by what the counters are.
   */
  sampleMs?: number;
  /**
   * The window lasts until this settles too (doctor: its survey), so the sample adds no time of
   * its own to a command that waits for the work anyway. Given a `table` on Linux, the first
   * counters of the first few dozen candidates are read before the call first yields.
   */
  until?: Promise<unknown>;
  thresholdPercent?: number;
}

/**
 * The processes whose parent chain reaches none of `paneRootPids` (a pane root itself is inside),
 * leaving out `ownPid`. A chain that loops or leaves the table ends the walk: outside.
 */
export function outsidePaneAncestry(
  processes: readonly ProcessEntry[],
  paneRootPids: readonly number[],
  ownPid: number,
): ProcessEntry[] {
  const parent = new Map(processes.map((entry) => [entry.pid, entry.ppid]));
  const roots = new Set(paneRootPids);
  const inside = (pid: number): boolean => {
    const seen = new Set<number>();
    for (let at: number | undefined = pid; at !== undefined && at > 0; at = parent.get(at)) {
      if (roots.has(at)) return true;
      if (seen.has(at)) return false;
      seen.add(at);
    }
    return false;
  };
  return processes.filter((entry) => entry.pid !== ownPid && !inside(entry.pid));
}

/**
 * Processes above the threshold outside pane ancestry, busiest first. CPU is what each used over a
 * window of `sampleMs` (or longer, see `until`), from /proc on Linux (`procCpuPercents`) and from
 * pidusage on macOS. A process with one thread cannot pass 100% and is not sampled (when the
 * threshold is at least that).
 */
export async function hotProcesses(options: HotOptions): Promise<HotProcesses> {
  // Only its end matters, whichever way it ends (handled at once, so a failure is never unhandled).
  const until = options.until?.then(
    () => {},
    () => {},
  );
  const root = options.procRoot;
  const table = options.table ?? (await readProcessTable(root));
  if (!table.ok) return { processes: [], error: table.error };
  const threshold = options.thresholdPercent ?? HOT_CPU_PERCENT;
  const candidates = outsidePaneAncestry(table.processes, options.paneRootPids, options.ownPid).filter(
    (entry) => threshold < 100 || entry.threads > 1,
  );
  if (candidates.length === 0) return { processes: [] };
  const pids = candidates.map((entry) => entry.pid);
  try {
    const cpu =
      root === undefined && process.platform === 'darwin'
        ? await pidusagePercents(pids, options.sampleMs, until)
        : await procCpuPercents(pids, root, options.sampleMs, until);
    const hot = candidates
      .map((entry) => ({ pid: entry.pid, name: entry.comm, cpu_percent: cpu.get(entry.pid) ?? 0 }))
      .filter((entry) => entry.cpu_percent > threshold)
      .map((entry) => ({ ...entry, cpu_percent: Math.round(entry.cpu_percent * 10) / 10 }));
    hot.sort((a, b) => b.cpu_percent - a.cpu_percent || a.pid - b.pid);
    return { processes: hot };
  } catch (error) {
    return { processes: [], error: `cpu sample: ${squeezedLine(messageOf(error))}` };
  }
}

/**
 * CPU percent per pid over a window, from two readings of /proc (`readCpuTime`) each with its own
 * clock; pids that exited (or were reused) in between are left out. The window's shortest length
 * follows the counters: nanoseconds for every candidate allow the short one.
 */
async function procCpuPercents(
  pids: readonly number[],
  root: string | undefined,
  sampleMs: number | undefined,
  until: Promise<void> | undefined,
): Promise<Map<number, number>> {
  const before = await readCpuTimes(pids, root);
  const precise = [...before.values()].every((reading) => reading.threadNs !== null);
  const window =
    sampleMs ?? (until === undefined ? CPU_SAMPLE_MS : precise ? PRECISE_SAMPLE_MIN_MS : CPU_SAMPLE_MIN_MS);
  await Promise.all([sleep(window), until]);
  const after = await readCpuTimes([...before.keys()], root);
  const result = new Map<number, number>();
  for (const [pid, end] of after) {
    const start = before.get(pid) as CpuTime;
    const ns = cpuNsBetween(start, end);
    const elapsed = Number(end.at - start.at);
    if (ns !== undefined && elapsed > 0) result.set(pid, (100 * ns) / elapsed);
  }
  return result;
}

async function readCpuTimes(
  pids: readonly number[],
  root: string | undefined,
): Promise<Map<number, CpuTime>> {
  const readings = new Map<number, CpuTime>();
  for (let at = 0; at < pids.length; at += READ_SLICE) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const pid of pids.slice(at, at + READ_SLICE)) {
      const reading = readCpuTime(pid, root);
      if (reading !== undefined) readings.set(pid, reading);
    }
  }
  return readings;
}

/**
 * The CPU time `before` and `after` (the same process) tell it used in between, in nanoseconds;
 * undefined when the pid is another process's now. With each thread's nanoseconds on both sides:
 * their growth (a thread that started in between counts whole), but never less than the ticks'
 * growth less the two ticks their cutting can take, so a thread that ended in between still counts.
 * Otherwise the ticks' growth.
 */
export function cpuNsBetween(before: CpuTime, after: CpuTime): number | undefined {
  if (before.start !== after.start) return undefined;
  const ticks = Math.max(0, (after.ticks - before.ticks) * TICK_NS);
  if (before.threadNs === null || after.threadNs === null) return ticks;
  let threads = 0;
  for (const [tid, ns] of after.threadNs) threads += Math.max(0, ns - (before.threadNs.get(tid) ?? 0));
  return Math.max(threads, ticks - 2 * TICK_NS);
}

/**
 * CPU percent per pid over the window, from pidusage (macOS: `ps`): on its first call for a pid it
 * reads the counters twice back to back and reports 0, so a warm-up call starts the window and a
 * second call measures it.
 */
async function pidusagePercents(
  pids: readonly number[],
  sampleMs: number | undefined,
  until: Promise<void> | undefined,
): Promise<Map<number, number>> {
  const window = sampleMs ?? (until === undefined ? CPU_SAMPLE_MS : CPU_SAMPLE_MIN_MS);
  // pidusage forgets a pid (and closes the descriptor it keeps open on its stat file) after maxage.
  const maxage = until ? OPEN_WINDOW_MAXAGE_MS : Math.max(10_000, window * 4);
  await cpuPercents(pids, maxage);
  await Promise.all([sleep(window), until]);
  return cpuPercents(pids, maxage);
}

/** CPU percent per pid since pidusage's previous call; pids that exited are left out. */
async function cpuPercents(pids: readonly number[], maxage: number): Promise<Map<number, number>> {
  const pidusage = (await import('pidusage')).default;
  const result = new Map<number, number>();
  if (pids.length === 1) {
    // With one pid pidusage rejects when it has exited; with several it leaves the gap out.
    const pid = pids[0] as number;
    const stat = await pidusage(pid, { maxage }).catch((error: unknown) => {
      if (exited(error) || /No matching pid/.test(messageOf(error))) return undefined;
      throw error;
    });
    if (stat) result.set(pid, stat.cpu);
    return result;
  }
  const stats = await pidusage([...pids], { maxage });
  for (const pid of pids) {
    const stat = stats[String(pid)];
    if (stat && Number.isFinite(stat.cpu)) result.set(pid, stat.cpu);
  }
  return result;
}

function exited(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ESRCH';
}
