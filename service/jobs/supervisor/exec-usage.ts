// What a job used, measured by its exec supervisor for the final record (later sizing hints): the
// peak resident memory of its process group and its CPU time. Linux /proc only (read through
// service/process/process-table.ts); elsewhere both stay null. CPU time is exact: the supervisor's
// waited-for children's time (its own cutime + cstime) grows by the command's own time and that of
// every descendant it waited for, once the command is reaped. Memory is sampled, so a spike between samples can be missed: each
// sample sums VmRSS over the command's process tree members still in its group (walking the
// tree's `children` files costs a few reads, where a scan of /proc would read every process), and
// each member's own VmHWM (its high-water mark) bounds the peak from below between samples.
// Every read is synchronous: procfs never waits on a disk, and the asynchronous reads loaded
// node:fs/promises and started the thread pool (four threads) in every supervisor whose job outlived
// its first sample, for a few reads of a few hundred bytes.

import { childPidsSync, memoryOf, readStatSync } from '../../process/process-table.js';

/** The kernel reports process times in USER_HZ ticks, which Linux fixes at 100 for user space. */
const MS_PER_TICK = 10;
/** Samples come quickly at first (most jobs are short), then settle to one a second. */
const FIRST_SAMPLE_MS = 50;
const SAMPLE_EVERY_MS = 1_000;
/** A runaway fork tree is not walked further than this many processes per sample. */
const MAX_MEMBERS = 4_096;

export interface JobUsage {
  peak_rss_bytes: number | null;
  cpu_ms: number | null;
}

export class UsageMeter {
  private peakBytes: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  private constructor(
    private readonly pgid: number,
    private readonly ticksBefore: number | null,
  ) {}

  /**
   * Call right after the command is spawned, in the same turn of the event loop: the kernel adds a
   * child's CPU time to this process's only when it is reaped, which Node does on a later turn, so
   * the time read now is still only that of the supervisor's earlier children. Read here rather than
   * before the spawn, it runs beside the command instead of between the start claim and the spawn.
   */
  static start(pgid: number): UsageMeter {
    return new UsageMeter(pgid, childTicks()).schedule(FIRST_SAMPLE_MS);
  }

  /** Call once the command has been reaped: stops sampling and returns what the job used. */
  finish(): JobUsage {
    this.stopped = true;
    clearTimeout(this.timer);
    const after = this.ticksBefore === null ? null : childTicks();
    const cpu = after === null || this.ticksBefore === null ? null : (after - this.ticksBefore) * MS_PER_TICK;
    return { peak_rss_bytes: this.peakBytes, cpu_ms: cpu === null ? null : Math.max(0, cpu) };
  }

  private schedule(ms: number): this {
    if (this.stopped) return this;
    this.timer = setTimeout(() => {
      this.sample();
      this.schedule(Math.min(ms * 2, SAMPLE_EVERY_MS));
    }, ms);
    // The job's end, not a sample, decides when the supervisor may exit.
    this.timer.unref();
    return this;
  }

  private sample(): void {
    let total = 0;
    let highest = 0;
    let seen = false;
    for (const pid of this.members()) {
      const memory = memoryOf(pid);
      if (memory === undefined) continue;
      seen = true;
      total += memory.rss;
      highest = Math.max(highest, memory.hwm);
    }
    if (seen) this.peakBytes = Math.max(this.peakBytes ?? 0, total, highest);
  }

  /** The leader and its descendants that are still in the job's group. */
  private members(): number[] {
    const found: number[] = [];
    const queue = [this.pgid];
    while (queue.length > 0 && found.length < MAX_MEMBERS) {
      const pid = queue.shift() as number;
      if (groupOf(pid) !== this.pgid) continue;
      found.push(pid);
      queue.push(...(childPidsSync(pid) ?? []));
    }
    return found;
  }
}

/**
 * cutime + cstime of this process: the CPU ticks of its reaped children. Null without /proc.
 * Synchronous: it stands between the command's end and the final record.
 */
function childTicks(): number | null {
  return readStatSync(process.pid)?.childTicks ?? null;
}

/** The group of a live process; a zombie has exited and its memory is gone. */
function groupOf(pid: number): number | undefined {
  const stat = readStatSync(pid);
  return stat === undefined || stat.state === 'Z' ? undefined : stat.pgrp;
}
