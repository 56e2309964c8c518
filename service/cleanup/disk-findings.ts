// Disk findings for doctor (spec, "Cleanup"): above 90% used, the largest of the known
// dogsled-owned paths that the caller names (the state dir's jobs/, worktree dirs, targets); never
// any other path. Sizes come from a bounded walk that never follows a symlink and counts each
// hard-linked file once (cargo's target/ links every binary twice).

import type { Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Doctor lists the largest paths only when the disk is fuller than this (spec: "above 90%"). */
export const DISK_FINDING_PERCENT = 90;
/** How many paths a finding lists. */
export const DISK_FINDING_PATHS = 10;
/** A walk stops after this many entries and reports its size as a lower bound. */
export const WALK_MAX_ENTRIES = 250_000;
/** Concurrent readdir/lstat calls of one walk: enough to hide latency, few enough for a shared box. */
const WALK_CONCURRENCY = 16;

export interface TreeSize {
  /** Allocated bytes (st_blocks × 512), each hard-linked inode once. */
  bytes: number;
  /** The walk hit its entry bound, or could not read part of the tree: `bytes` is a lower bound. */
  partial: boolean;
}

export interface DiskFinding {
  used_percent: number;
  largest: Array<{ path: string; bytes: number; partial: boolean }>;
}

export interface WalkLimits {
  maxEntries?: number;
}

/**
 * The disk finding, or null when the disk is not above DISK_FINDING_PERCENT. `candidates` are the
 * dogsled-owned paths to size; a missing one is left out.
 */
export async function diskFindings(input: {
  usedPercent: number;
  candidates: readonly string[];
  limits?: WalkLimits;
}): Promise<DiskFinding | null> {
  if (!(input.usedPercent > DISK_FINDING_PERCENT)) return null;
  const sized: DiskFinding['largest'] = [];
  // One walk at a time: a full disk is often a busy one.
  for (const path of new Set(input.candidates.map((candidate) => resolve(candidate)))) {
    const size = await treeSize(path, input.limits);
    if (size) sized.push({ path, ...size });
  }
  sized.sort((a, b) => b.bytes - a.bytes || a.path.localeCompare(b.path));
  return { used_percent: input.usedPercent, largest: sized.slice(0, DISK_FINDING_PATHS) };
}

/** Disk usage of the tree at `root`, or null when nothing is there. `root` itself is not followed either. */
export async function treeSize(root: string, limits: WalkLimits = {}): Promise<TreeSize | null> {
  const maxEntries = limits.maxEntries ?? WALK_MAX_ENTRIES;
  let top: Stats;
  try {
    top = await lstat(root);
  } catch (error) {
    if (isGone(error)) return null;
    return { bytes: 0, partial: true };
  }
  const state = { bytes: 0, seen: 1, partial: false, inodes: new Set<string>() };
  const count = (stats: Stats): void => {
    if (stats.nlink > 1 && !stats.isDirectory()) {
      const key = `${stats.dev}:${stats.ino}`;
      if (state.inodes.has(key)) return;
      state.inodes.add(key);
    }
    state.bytes += stats.blocks * 512;
  };
  count(top);
  if (!top.isDirectory()) return { bytes: state.bytes, partial: false };
  const run = limiter(WALK_CONCURRENCY);

  const walk = async (dir: string): Promise<void> => {
    let names: string[];
    try {
      names = await run(() => readdir(dir));
    } catch (error) {
      if (!isGone(error)) state.partial = true;
      return;
    }
    await Promise.all(
      names.map(async (name) => {
        if (state.seen >= maxEntries) {
          state.partial = true;
          return;
        }
        state.seen++;
        const path = join(dir, name);
        let stats: Stats;
        try {
          stats = await run(() => lstat(path));
        } catch (error) {
          if (!isGone(error)) state.partial = true;
          return;
        }
        count(stats);
        if (stats.isDirectory()) await walk(path);
      }),
    );
  };
  await walk(root);
  return { bytes: state.bytes, partial: state.partial };
}

/** Removed while we walked: not part of the tree any more, not a gap in what we measured. */
function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** At most `size` of the returned function's tasks run at once. */
function limiter(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    while (active >= size) await new Promise<void>((wake) => waiting.push(wake));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
