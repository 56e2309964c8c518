// Where this process's memory cgroup lives on disk: its path from /proc/self/cgroup, mapped
// through the mount's root (a container often sees its own cgroup mounted as `/`) to a directory
// under the mount point. The walk to ancestors stops at the mount point: above it is not visible.

import { posix } from 'node:path';

export interface ProcCgroup {
  /** The unified (v2) path from the `0::` line. */
  v2: string | null;
  /** The v1 path of the hierarchy that carries the memory controller. */
  v1Memory: string | null;
}

export interface CgroupMount {
  fstype: 'cgroup' | 'cgroup2';
  /** The path inside the hierarchy that is mounted (4th mountinfo column). */
  root: string;
  mountPoint: string;
  superOptions: string[];
}

/** One cgroup on the walk from the process's own up to the mount's root. */
export interface CgroupLevel {
  /** The path as the hierarchy names it, e.g. /user.slice/foo. */
  cgroup: string;
  dir: string;
}

export function parseProcCgroup(text: string): ProcCgroup {
  const found: ProcCgroup = { v2: null, v1Memory: null };
  for (const line of text.split('\n')) {
    // The path may itself contain ':', so split on the first two only.
    const first = line.indexOf(':');
    const second = line.indexOf(':', first + 1);
    if (first < 0 || second < 0) continue;
    const id = line.slice(0, first);
    const controllers = line.slice(first + 1, second);
    const path = line.slice(second + 1).trim();
    if (id === '0' && controllers === '') found.v2 = path;
    else if (controllers.split(',').includes('memory')) found.v1Memory = path;
  }
  return found;
}

/** The cgroup and cgroup2 mounts of a /proc/self/mountinfo text. */
export function parseMountinfo(text: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    // Optional fields (shared:N, master:N) vary in number; a lone '-' ends them.
    const separator = fields.indexOf('-', 6);
    if (separator < 0) continue;
    const fstype = fields[separator + 1];
    if (fstype !== 'cgroup' && fstype !== 'cgroup2') continue;
    mounts.push({
      fstype,
      root: unescapeMountField(fields[3] ?? ''),
      mountPoint: unescapeMountField(fields[4] ?? ''),
      superOptions: (fields[separator + 3] ?? '').split(','),
    });
  }
  return mounts;
}

/** Mounts that show the v2 hierarchy, and the v1 hierarchy with the memory controller. */
export function memoryMounts(mounts: CgroupMount[]): { v2: CgroupMount[]; v1: CgroupMount[] } {
  return {
    v2: mounts.filter((m) => m.fstype === 'cgroup2'),
    v1: mounts.filter((m) => m.fstype === 'cgroup' && m.superOptions.includes('memory')),
  };
}

/**
 * The process's cgroup and its ancestors, leaf first, as directories under the mount that shows
 * the most of it; null when no mount shows it (another namespace's view, or not mounted).
 */
export function cgroupLevels(path: string, mounts: CgroupMount[]): CgroupLevel[] | null {
  const leaf = trimSlash(posix.normalize(path));
  let mount: CgroupMount | undefined;
  for (const candidate of mounts) {
    const root = trimSlash(candidate.root);
    if (!isWithin(leaf, root)) continue;
    if (!mount || root.length > trimSlash(mount.root).length) mount = candidate;
  }
  if (!mount) return null;
  const root = trimSlash(mount.root);
  const levels: CgroupLevel[] = [];
  for (let current = leaf; ; current = posix.dirname(current)) {
    levels.push({ cgroup: current, dir: posix.join(mount.mountPoint, current.slice(root.length)) });
    if (current === root) return levels;
  }
}

function isWithin(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(`${root}/`);
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** mountinfo writes space, tab, newline and backslash in paths as octal escapes (\040). */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}
