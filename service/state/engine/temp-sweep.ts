// Removes temp files that a killed writer left in the state dir, jobs/ and code-cache/: ours name their writer
// (atomic-write.ts) and go once it is dead, however new; the `<file>.<digits>` temp files of
// the atomic-write library older builds used, go once they are a minute old, since no live writer keeps one that long.
// A writer that is alive, even stopped, keeps its temp file: it will rename it when it resumes.

import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { codeCacheDir } from '../code-cache/code-cache.js';
import type { StatePaths } from '../paths.js';
import { tempOwner } from './atomic-write.js';
import { identityAlive, selfIdentity } from './liveness.js';

/** How old a legacy temp file must be before it counts as orphaned. */
export const LEGACY_TEMP_AGE_MS = 60_000;

const LEGACY_TEMP = /\.jsonl?\.\d+$/;

/** Returns the paths removed. Judged on the real clock: file mtimes are real time. */
export async function sweepOrphanTemps(paths: StatePaths): Promise<string[]> {
  const removed: string[] = [];
  for (const dir of [paths.dir, paths.jobs, codeCacheDir(paths.dir)]) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(dir, name);
      if (!(await orphaned(name, path))) continue;
      try {
        await unlink(path);
        removed.push(path);
      } catch {
        // Renamed into place or removed meanwhile: nothing to do.
      }
    }
  }
  return removed;
}

async function orphaned(name: string, path: string): Promise<boolean> {
  const ours = tempOwner(name, selfIdentity().hostname);
  if (ours !== undefined) return identityAlive(ours.writer) === false;
  if (!LEGACY_TEMP.test(name)) return false;
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() === true && info.mtimeMs < Date.now() - LEGACY_TEMP_AGE_MS;
}
