// A fake /proc for `serve` under DOGSLED_TEST_PROBE_ROOT: the test decides the cores, the CPU
// ticks and the memory the service measures, and can advance the ticks while it runs. Also fixture
// processes (/proc/<pid>: stat, comm, children, cmdline, status, cwd, fd/1) for the process table.

import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTree } from './tree.js';

const KIB = 1024;

export interface ProcShape {
  cores: number;
  total: number;
  idle: number;
  memTotalKiB?: number;
  memAvailableKiB?: number;
}

export function procStat(shape: ProcShape): string {
  const busy = shape.total - shape.idle;
  const line = (name: string, share: number) =>
    `${name} ${Math.round(busy * share)} 0 0 ${Math.round(shape.idle * share)} 0 0 0 0 0 0`;
  const perCore = Array.from({ length: shape.cores }, (_, i) => line(`cpu${i}`, 1 / shape.cores));
  return [line('cpu ', 1), ...perCore, 'intr 0', 'ctxt 0', 'btime 1700000000', ''].join('\n');
}

export async function writeProc(root: string, shape: ProcShape): Promise<void> {
  const total = shape.memTotalKiB ?? 32 * KIB * KIB;
  const available = shape.memAvailableKiB ?? 24 * KIB * KIB;
  await writeTree(root, {
    'proc/stat': procStat(shape),
    'proc/loadavg': '0.50 0.40 0.30 1/200 12345\n',
    'proc/meminfo': `MemTotal:       ${total} kB\nMemFree:        ${available} kB\nMemAvailable:   ${available} kB\n`,
  });
}

/** Advances the CPU counters by `total` ticks of which `idle` were idle, as a running kernel would. */
export async function advanceStat(root: string, shape: ProcShape): Promise<void> {
  await writeFile(join(root, 'proc', 'stat.tmp'), procStat(shape));
  await rename(join(root, 'proc', 'stat.tmp'), join(root, 'proc', 'stat'));
}

/** One process of a fixture /proc/<pid> tree; what is left out is not written. */
export interface ProcessShape {
  pid: number;
  comm: string;
  state?: string;
  ppid?: number;
  pgrp?: number;
  session?: number;
  threads?: number;
  start?: number;
  /** Its own CPU ticks (stat fields 14 and 15). */
  utime?: number;
  stime?: number;
  cutime?: number;
  cstime?: number;
  /**
   * Each thread's schedstat line (task/<tid>/schedstat): a number is its first field (ns); null
   * leaves the thread's directory without the file.
   */
  schedstat?: Record<number, number | string | null>;
  /** Written as task/<pid>/children. */
  children?: number[];
  cwd?: string;
  /** stdout's target (fd/1). */
  stdout?: string;
  argv?: string[];
  /** VmRSS and VmHWM in KiB, for the status file. */
  rssKiB?: number;
  hwmKiB?: number;
}

/** A /proc/PID/stat line as the kernel writes it (52 fields), with the shape's values in place. */
export function statLine(shape: ProcessShape): string {
  const fields = Array.from({ length: 52 - 2 }, () => '0');
  const set = (field: number, value: number | string) => {
    fields[field - 3] = String(value);
  };
  set(3, shape.state ?? 'S');
  set(4, shape.ppid ?? 1);
  set(5, shape.pgrp ?? shape.pid);
  set(6, shape.session ?? shape.pid);
  set(8, -1);
  set(14, shape.utime ?? 0);
  set(15, shape.stime ?? 0);
  set(16, shape.cutime ?? 0);
  set(17, shape.cstime ?? 0);
  set(20, shape.threads ?? 1);
  set(22, shape.start ?? 1000);
  return `${shape.pid} (${shape.comm}) ${fields.join(' ')}\n`;
}

/** Writes each process under `root` (a fixture /proc: pass it where the code takes a root). */
export async function writeProcesses(root: string, processes: readonly ProcessShape[]): Promise<void> {
  for (const shape of processes) {
    const dir = join(root, String(shape.pid));
    const tree: Record<string, string> = {
      [`${shape.pid}/stat`]: statLine(shape),
      [`${shape.pid}/comm`]: `${shape.comm}\n`,
    };
    if (shape.children !== undefined) {
      tree[`${shape.pid}/task/${shape.pid}/children`] = shape.children.map((pid) => `${pid} `).join('');
    }
    for (const [tid, line] of Object.entries(shape.schedstat ?? {})) {
      if (line === null) await mkdir(join(dir, 'task', tid), { recursive: true });
      else tree[`${shape.pid}/task/${tid}/schedstat`] = typeof line === 'number' ? `${line} 1000 7\n` : line;
    }
    if (shape.argv !== undefined) tree[`${shape.pid}/cmdline`] = `${shape.argv.join('\0')}\0`;
    if (shape.rssKiB !== undefined) {
      const hwm = shape.hwmKiB === undefined ? '' : `VmHWM:\t${shape.hwmKiB} kB\n`;
      tree[`${shape.pid}/status`] = `Name:\t${shape.comm}\n${hwm}VmRSS:\t${shape.rssKiB} kB\n`;
    }
    await writeTree(root, tree);
    if (shape.cwd !== undefined) await symlink(shape.cwd, join(dir, 'cwd'));
    if (shape.stdout !== undefined) {
      await mkdir(join(dir, 'fd'), { recursive: true });
      await symlink(shape.stdout, join(dir, 'fd', '1'));
    }
  }
}
