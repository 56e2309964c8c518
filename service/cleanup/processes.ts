// Doctor's report-only hot processes: above 100% CPU and outside every Herdr pane's ancestry, found
// in the host's process table (service/process/process-table.ts). A process is named by its program (comm),
// never by its arguments, which may hold secrets. An unreadable table is an answer of its own: the
// loss rule treats it as a hold, and doctor reports it.

import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../core/common/errors.js';
import { squeezedLine } from '../core/text/clean.js';
import { type ProcessEntry, type ProcessTable, readProcessTable } from '../process/process-table.js';

/** Report-only threshold (spec: "Processes above 100% CPU"): more than one core's worth. */
export const HOT_CPU_PERCENT = 100;
/** The window between pidusage's two samples of each candidate. */
export const CPU_SAMPLE_MS = 1_000;
/**
 * The shortest window of a sample that runs beside other work (`until`): /proc counts CPU in
 * 10 ms ticks, so a quarter second tells 100% from 104%.
 */
export const CPU_SAMPLE_MIN_MS = 250;
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
  /** The window; with `until`, its shortest length. */
  sampleMs?: number;
  /**
   * The window lasts until this settles too (doctor: its survey), so the sample adds no time of
   * its own to a command that waits for the work anyway.
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
 * Processes above the threshold outside pane ancestry, busiest first. CPU comes from pidusage over
 * a window of `sampleMs` (or longer, see `until`): on Linux its first call for a pid reads the counters twice back to back
 * and reports 0, so a warm-up call starts the window and a second call measures it. A process with
 * one thread cannot pass 100% and is not sampled (when the threshold is at least that).
 */
export async function hotProcesses(options: HotOptions): Promise<HotProcesses> {
  // Only its end matters, whichever way it ends (handled at once, so a failure is never unhandled).
  const until = options.until?.then(
    () => {},
    () => {},
  );
  const table = options.table ?? (await readProcessTable());
  if (!table.ok) return { processes: [], error: table.error };
  const threshold = options.thresholdPercent ?? HOT_CPU_PERCENT;
  const candidates = outsidePaneAncestry(table.processes, options.paneRootPids, options.ownPid).filter(
    (entry) => threshold < 100 || entry.threads > 1,
  );
  if (candidates.length === 0) return { processes: [] };
  const sampleMs = options.sampleMs ?? CPU_SAMPLE_MS;
  const pids = candidates.map((entry) => entry.pid);
  // pidusage forgets a pid (and closes the descriptor it keeps open on its stat file) after maxage.
  const maxage = options.until ? OPEN_WINDOW_MAXAGE_MS : Math.max(10_000, sampleMs * 4);
  try {
    await cpuPercents(pids, maxage);
    await Promise.all([sleep(sampleMs), until]);
    const cpu = await cpuPercents(pids, maxage);
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
