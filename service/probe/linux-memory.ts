// Linux memory as the placement rules need it: what a new agent here could actually use. The
// smallest finite cgroup limit on the way from this process up to the mount governs; when one
// exists both it and the host are measured and the tighter (less free) is reported, because a
// generous limit on a crowded host protects nothing. v2 is preferred when its tree has limits.

import type { Memory } from '../core/placement/host-types.js';
import { type CgroupLevel, cgroupLevels, memoryMounts, parseMountinfo, parseProcCgroup } from './cgroup.js';
import { measurementFailed, type ReadText } from './proc-reader.js';

export const PROC_MEMINFO = '/proc/meminfo';
export const PROC_SELF_CGROUP = '/proc/self/cgroup';
export const PROC_SELF_MOUNTINFO = '/proc/self/mountinfo';

/** Kernels write "no limit" as a huge page-aligned number (v1: 9223372036854771712); v2 also says "max". */
export const UNLIMITED_FROM = 2 ** 62;

/** The file names of one cgroup version. */
interface Hierarchy {
  limit: string;
  usage: string;
  /** memory.stat keys for reclaimable page cache, first present wins. */
  inactive: string[];
}

const V2: Hierarchy = { limit: 'memory.max', usage: 'memory.current', inactive: ['inactive_file'] };
// v1's total_ counters include child cgroups, like usage_in_bytes does; old kernels lack them.
const V1: Hierarchy = {
  limit: 'memory.limit_in_bytes',
  usage: 'memory.usage_in_bytes',
  inactive: ['total_inactive_file', 'inactive_file'],
};

export interface HostMeminfo {
  total_bytes: number;
  available_bytes: number;
}

export interface CgroupUsage {
  cgroup: string;
  limit_bytes: number;
  /** memory.current (v2) or memory.usage_in_bytes (v1). */
  usage_bytes: number;
  inactive_file_bytes: number;
}

export function parseMeminfo(text: string): HostMeminfo {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\w+):\s+(\d+)(\s+kB)?\s*$/.exec(line);
    if (match) values.set(match[1]!, Number(match[2]) * (match[3] ? 1024 : 1));
  }
  const total = values.get('MemTotal');
  const available = values.get('MemAvailable');
  if (total === undefined) throw measurementFailed(PROC_MEMINFO, 'no MemTotal');
  if (available === undefined) throw measurementFailed(PROC_MEMINFO, 'no MemAvailable');
  return { total_bytes: total, available_bytes: available };
}

/** A limit file's value in bytes, or null for no limit. */
export function parseLimit(text: string, path: string): number | null {
  const value = text.trim();
  if (value === 'max') return null;
  const bytes = parseCount(value, path);
  return bytes >= UNLIMITED_FROM ? null : bytes;
}

export function parseMemoryStat(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value && /^\d+$/.test(value)) values.set(key, Number(value));
  }
  return values;
}

/**
 * The reported memory: the host's, or the governing cgroup's when it has less free. A host-scope
 * answer still names a finite limit's cgroup and size, so readers can see that a limit exists.
 */
export function chooseMemory(host: HostMeminfo, limited: CgroupUsage | null): Memory {
  const hostMemory: Memory = {
    total_bytes: host.total_bytes,
    used_bytes: Math.max(0, host.total_bytes - host.available_bytes),
    free_bytes: host.available_bytes,
    scope: 'host',
    cgroup: limited?.cgroup ?? null,
    limit_bytes: limited?.limit_bytes ?? null,
  };
  if (!limited) return hostMemory;
  // inactive_file is page cache the kernel reclaims before it would kill anything under the limit.
  const used = Math.max(0, limited.usage_bytes - limited.inactive_file_bytes);
  const free = limited.limit_bytes - used;
  if (free > host.available_bytes) return hostMemory;
  return {
    total_bytes: limited.limit_bytes,
    used_bytes: used,
    free_bytes: free,
    scope: 'cgroup',
    cgroup: limited.cgroup,
    limit_bytes: limited.limit_bytes,
  };
}

export async function linuxMemory(read: ReadText): Promise<Memory> {
  const meminfo = await read(PROC_MEMINFO);
  if (meminfo === undefined) throw measurementFailed(PROC_MEMINFO, 'missing');
  const host = parseMeminfo(meminfo);
  const governing = await governingLimit(read);
  return chooseMemory(host, governing && (await cgroupUsage(read, governing)));
}

interface Governing {
  hierarchy: Hierarchy;
  level: CgroupLevel;
  limit: number;
}

/** The smallest finite limit from the process's cgroup up to the mount, or null for none. */
async function governingLimit(read: ReadText): Promise<Governing | null> {
  const [cgroupText, mountinfoText] = await Promise.all([read(PROC_SELF_CGROUP), read(PROC_SELF_MOUNTINFO)]);
  // No cgroup or mount table (cgroups compiled out, odd sandboxes): the host numbers stand alone.
  if (cgroupText === undefined || mountinfoText === undefined) return null;
  const paths = parseProcCgroup(cgroupText);
  const mounts = memoryMounts(parseMountinfo(mountinfoText));
  const candidates: Array<[Hierarchy, CgroupLevel[] | null]> = [
    [V2, paths.v2 === null ? null : cgroupLevels(paths.v2, mounts.v2)],
    [V1, paths.v1Memory === null ? null : cgroupLevels(paths.v1Memory, mounts.v1)],
  ];
  for (const [hierarchy, levels] of candidates) {
    if (!levels) continue;
    const limits = await Promise.all(levels.map((level) => readLimit(read, hierarchy, level)));
    // A v2 tree without memory.max anywhere (root cgroup, or memory delegated to v1) says nothing.
    if (limits.every((limit) => limit === undefined)) continue;
    let governing: Governing | null = null;
    for (const [i, level] of levels.entries()) {
      const limit = limits[i];
      // Leaf first, so on a tie the ancestor wins: its usage includes the leaf's, leaving less free.
      if (typeof limit === 'number' && (!governing || limit <= governing.limit)) {
        governing = { hierarchy, level, limit };
      }
    }
    return governing;
  }
  return null;
}

/** undefined: no limit file here; null: a file that says "no limit". */
async function readLimit(
  read: ReadText,
  hierarchy: Hierarchy,
  level: CgroupLevel,
): Promise<number | null | undefined> {
  const path = `${level.dir}/${hierarchy.limit}`;
  const text = await read(path);
  return text === undefined ? undefined : parseLimit(text, path);
}

async function cgroupUsage(read: ReadText, { hierarchy, level, limit }: Governing): Promise<CgroupUsage> {
  const usagePath = `${level.dir}/${hierarchy.usage}`;
  const statPath = `${level.dir}/memory.stat`;
  const [usageText, statText] = await Promise.all([read(usagePath), read(statPath)]);
  if (usageText === undefined) throw measurementFailed(usagePath, 'missing under a finite memory limit');
  if (statText === undefined) throw measurementFailed(statPath, 'missing under a finite memory limit');
  const stat = parseMemoryStat(statText);
  const inactive = hierarchy.inactive.map((key) => stat.get(key)).find((value) => value !== undefined);
  if (inactive === undefined) throw measurementFailed(statPath, `no ${hierarchy.inactive.join(' or ')}`);
  return {
    cgroup: level.cgroup,
    limit_bytes: limit,
    usage_bytes: parseCount(usageText.trim(), usagePath),
    inactive_file_bytes: inactive,
  };
}

function parseCount(value: string, path: string): number {
  if (!/^\d+$/.test(value)) throw measurementFailed(path, `unparseable number "${value}"`);
  return Number(value);
}
