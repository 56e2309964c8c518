// A host's facts (OS, kernel, CPU, memory, GPUs; state/schemas.ts HostFactsSchema) for people: one
// line, as `status` shows it under each host and the sidebar under each host card. Pure. (A peer's
// facts arrive escape-free: its whole snapshot is cleaned where it is parsed, state/peer-schemas.ts.)

import { formatBytes } from '../common/units.js';
import type { HostFacts } from './fleet-types.js';

const KERNELS: Record<string, string> = { linux: 'Linux', darwin: 'Darwin' };

/**
 * `AMD EPYC 7763, 16 cores (8 physical) · 62.8 GiB · 2× NVIDIA GeForce RTX 4090 24.0 GiB · Debian
 * GNU/Linux 12, Linux 6.1.0`: what placement cares for first, so a line cut to its width loses the
 * OS last; parts that could not be read are left out.
 */
export function factsLine(facts: HostFacts): string {
  const parts: string[] = [];
  if (facts.cpu) {
    const { model, cores, physical_cores, performance_cores, efficiency_cores } = facts.cpu;
    const split =
      efficiency_cores > 0
        ? ` (${performance_cores}P+${efficiency_cores}E)`
        : physical_cores > 0 && physical_cores !== cores
          ? ` (${physical_cores} physical)`
          : '';
    parts.push(`${model || 'CPU'}, ${cores} core${cores === 1 ? '' : 's'}${split}`);
  }
  if (facts.memory_bytes !== null) parts.push(formatBytes(facts.memory_bytes));
  if (facts.gpus) parts.push(gpusText(facts.gpus));
  if (facts.os) {
    const name = [facts.os.distro || facts.os.platform, facts.os.release].filter(Boolean).join(' ');
    const kernel = facts.os.kernel ? `${KERNELS[facts.os.platform] ?? 'kernel'} ${facts.os.kernel}` : '';
    parts.push([name, kernel].filter(Boolean).join(', '));
  }
  return parts.join(' · ');
}

/** `no GPU`, or each kind once with its count and memory: `2× NVIDIA GeForce RTX 4090 24.0 GiB`. */
function gpusText(gpus: NonNullable<HostFacts['gpus']>): string {
  if (gpus.length === 0) return 'no GPU';
  const kinds = new Map<string, number>();
  for (const gpu of gpus) {
    const name = [
      gpu.model || gpu.vendor || 'GPU',
      gpu.memory_bytes === null ? '' : formatBytes(gpu.memory_bytes),
    ]
      .filter(Boolean)
      .join(' ');
    kinds.set(name, (kinds.get(name) ?? 0) + 1);
  }
  return [...kinds].map(([name, n]) => (n > 1 ? `${n}× ${name}` : name)).join(', ');
}
