// One measurement of this host: CPU, memory, disk. Linux reads /proc and the cgroup tree;
// macOS runs vm_stat, sysctl and iostat. Every side effect comes in through ProbeDeps so the
// daemon uses the real machine and tests use fixture trees. A reading that cannot be trusted
// throws DogsledError; no number here is ever a default standing in for a measurement.

import { availableParallelism, homedir, loadavg } from 'node:os';
import type { CpuTicks } from '../core/placement/cpu-busy.js';
import type { Disk, Memory } from '../core/placement/host-types.js';
import { darwinHost, type Run, runCommand } from './darwin.js';
import { homeDisk, type Statfs, statfsSpace } from './home-disk.js';
import { linuxCpu } from './linux-cpu.js';
import { linuxMemory } from './linux-memory.js';
import { measurementFailed, type ReadText, readText } from './proc-reader.js';

export type { Run } from './darwin.js';
export type { DiskSpace, Statfs } from './home-disk.js';
export { type ReadText, readText, rootedReader } from './proc-reader.js';

export interface HostProbe {
  os: string;
  cores: number;
  load1: number;
  /** Cumulative /proc/stat ticks (Linux); busy is the difference of two probes. */
  cpu_ticks: CpuTicks | null;
  /** Busy share 0..1 over iostat's one-second window (macOS); null on Linux. */
  busy_direct: number | null;
  memory: Memory;
  /** macOS memory pressure: 1 normal, 2 warn, 4 critical; null on Linux. */
  pressure_level: number | null;
  disk: Disk;
}

export interface ProbeDeps {
  platform: NodeJS.Platform;
  read: ReadText;
  /** The directory whose filesystem is reported as disk. */
  home: string;
  statfs: Statfs;
  run: Run;
}

export function defaultProbeDeps(): ProbeDeps {
  return {
    platform: process.platform,
    read: readText,
    home: homedir(),
    statfs: statfsSpace,
    run: runCommand,
  };
}

export async function probeHost(deps: Partial<ProbeDeps> = {}): Promise<HostProbe> {
  const { platform, read, home, statfs, run } = { ...defaultProbeDeps(), ...deps };
  if (platform === 'linux') {
    const [cpu, memory, disk] = await Promise.all([
      linuxCpu(read),
      linuxMemory(read),
      homeDisk(home, statfs),
    ]);
    return {
      os: platform,
      cores: cpu.cores,
      load1: cpu.load1,
      cpu_ticks: cpu.cpu_ticks,
      busy_direct: null,
      memory,
      pressure_level: null,
      disk,
    };
  }
  if (platform === 'darwin') {
    const [host, disk] = await Promise.all([darwinHost(run), homeDisk(home, statfs)]);
    return {
      os: platform,
      cores: availableParallelism(),
      // os.loadavg() always returns the 1, 5 and 15 minute averages.
      load1: loadavg()[0]!,
      cpu_ticks: null,
      busy_direct: host.busy_direct,
      memory: host.memory,
      pressure_level: host.pressure_level,
      disk,
    };
  }
  throw measurementFailed(`platform ${platform}`, 'not supported (linux and darwin only)');
}
