// CPU busy is the share of the last interval that the CPUs were not idle, derived from two
// cumulative tick readings. A counter that went backwards (reboot, wrap) yields no sample rather
// than a made-up number, so a host never looks free because of a bad reading.

export type CpuTicks = {
  /** Sum of all tick columns that count as time (user through steal). */
  total: number;
  /** idle + iowait. */
  idle: number;
};

export function busyBetween(previous: CpuTicks | null, current: CpuTicks): number | null {
  if (!previous) return null;
  const total = current.total - previous.total;
  const idle = current.idle - previous.idle;
  if (total <= 0 || idle < 0 || idle > total) return null;
  return clamp01(1 - idle / total);
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
