// The home filesystem's size and the space an unprivileged user can still write. Agents write
// worktrees and caches under home, and blocks reserved for root are no use to them, so free is
// bavail rather than bfree.

import { statfs } from 'node:fs/promises';
import { messageOf } from '../core/common/errors.js';
import type { Disk } from '../core/placement/host-types.js';
import { measurementFailed } from './proc-reader.js';

export interface DiskSpace {
  total_bytes: number;
  free_bytes: number;
}

export type Statfs = (path: string) => Promise<DiskSpace>;

/** Bytes from a statfs(2) result. */
export function diskSpace(stats: { bsize: number; blocks: number; bavail: number }): DiskSpace {
  return { total_bytes: stats.blocks * stats.bsize, free_bytes: stats.bavail * stats.bsize };
}

export const statfsSpace: Statfs = async (path) => diskSpace(await statfs(path));

export async function homeDisk(home: string, measure: Statfs): Promise<Disk> {
  let space: DiskSpace;
  try {
    space = await measure(home);
  } catch (error) {
    throw measurementFailed(home, `statfs: ${messageOf(error)}`);
  }
  if (!(space.total_bytes > 0) || !(space.free_bytes >= 0)) {
    throw measurementFailed(
      home,
      `statfs reported ${space.total_bytes} total, ${space.free_bytes} free bytes`,
    );
  }
  return { path: home, total_bytes: space.total_bytes, free_bytes: space.free_bytes };
}
