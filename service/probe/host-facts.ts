// What this host is, from systeminformation: OS and kernel, CPU model and core counts (performance
// and efficiency cores on Apple silicon and hybrid Intel), total memory, GPUs with their memory.
// Read by `dogsled host facts`, which serve runs once as a child when it starts (daemon/facts.ts):
// systeminformation takes a while to load and runs commands of its own (lspci, nvidia-smi,
// sw_vers, system_profiler…), some synchronously, so none of that shares the service's process.
//
// macOS: these facts come from systeminformation, not from parsing sysctl and system_profiler by
// hand. The per-tick probe (darwin.ts) keeps its own readers, because there systeminformation
// does not give the spec's numbers: its mem().available is free + (used - active), where the spec's
// is vm_stat's free + inactive + speculative pages; it has no kern.memorystatus_vm_pressure_level;
// and its currentLoad() is os.cpus() ticks since its previous call, not iostat's one-second window.
// Its mem().total is os.totalmem(), which is hw.memsize: the total here is the spec's number.

import type { Systeminformation } from 'systeminformation';
import { messageOf } from '../core/common/errors.js';
import type { HostFacts } from '../core/fleet/fleet-types.js';
import { clip, plainLine } from '../core/text/clean.js';

/** Text from the host's tools: escape-free, one line, and short. */
const TEXT_MAX = 120;
const MIB = 1024 * 1024;

export interface FactsReadings {
  os: PromiseSettledResult<Systeminformation.OsData>;
  cpu: PromiseSettledResult<Systeminformation.CpuData>;
  mem: PromiseSettledResult<Systeminformation.MemData>;
  graphics: PromiseSettledResult<Systeminformation.GraphicsData>;
}

export async function readHostFacts(now: number): Promise<HostFacts> {
  const si = (await import('systeminformation')).default;
  const [os, cpu, mem, graphics] = await Promise.allSettled([si.osInfo(), si.cpu(), si.mem(), si.graphics()]);
  return factsOf({ os, cpu, mem, graphics }, now);
}

function text(value: unknown): string {
  return clip(
    plainLine(typeof value === 'string' ? value : value == null ? '' : String(value)).trim(),
    TEXT_MAX,
  );
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

/** systeminformation's readings as HostFacts; each part that failed is null, with its reason. */
export function factsOf(readings: FactsReadings, now: number): HostFacts {
  const errors: string[] = [];
  const part = <T, R>(name: string, reading: PromiseSettledResult<T>, map: (value: T) => R): R | null => {
    if (reading.status === 'rejected') {
      errors.push(`${name}: ${text(messageOf(reading.reason))}`);
      return null;
    }
    return map(reading.value);
  };
  const os = part('os', readings.os, (o) => ({
    platform: text(o.platform),
    distro: text(o.distro),
    release: text(o.release),
    kernel: text(o.kernel),
    arch: text(o.arch),
  }));
  const cpu = part('cpu', readings.cpu, (c) => ({
    model: text(`${c.manufacturer ?? ''} ${c.brand ?? ''}`),
    cores: count(c.cores),
    physical_cores: count(c.physicalCores),
    performance_cores: count(c.performanceCores),
    efficiency_cores: count(c.efficiencyCores),
  }));
  const memory = part('memory', readings.mem, (m) =>
    typeof m.total === 'number' && m.total > 0 ? m.total : null,
  );
  const gpus = part('gpus', readings.graphics, (g) =>
    (g.controllers ?? []).map((controller) => ({
      vendor: text(controller.vendor),
      // nvidia-smi's product name (`name`) over lspci's chip name where both are known.
      model: text(controller.name || controller.model),
      // systeminformation gives VRAM in MiB; integrated and Apple GPUs share main memory (null).
      memory_bytes:
        typeof controller.vram === 'number' && controller.vram > 0 && !controller.vramDynamic
          ? controller.vram * MIB
          : null,
    })),
  );
  return { read_ms: now, os, cpu, memory_bytes: memory, gpus, errors };
}
