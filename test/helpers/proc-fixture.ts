// A fake /proc for `serve` under DOGSLED_TEST_PROBE_ROOT: the test decides the cores, the CPU
// ticks and the memory the service measures, and can advance the ticks while it runs.

import { rename, writeFile } from 'node:fs/promises';
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
