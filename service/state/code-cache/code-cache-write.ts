// Writes a hot bundle's code cache (code-cache.ts) after a run that had none. Built as an entry of
// its own (dist/code-cache-write.mjs): the start-up path that reads caches never loads the writer.

import { lstat, mkdir, readdir, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeAtomic } from '../engine/atomic-write.js';
import { STATE_DIR_MODE, STATE_FILE_MODE } from '../paths.js';
import { formatCodeCache, isSiblingCache, nodeCompileCacheDir } from './code-cache.js';

/** Another build's cache unused this long is dropped when this build writes its own. */
export const SIBLING_CACHE_DAYS = 7;

/**
 * Replaces the cache atomically (0600, in a 0700 dir), only inside a state dir that exists: a
 * command that wrote no state of its own leaves none behind for its cache either. Other builds'
 * caches of the same command not written for SIBLING_CACHE_DAYS go, so old builds do not pile up.
 */
export async function writeCodeCache(
  stateDir: string,
  file: string,
  key: string,
  data: Buffer,
  name: string,
  now = Date.now(),
): Promise<void> {
  if (!(await stat(stateDir)).isDirectory()) return;
  await mkdir(dirname(file), { mode: STATE_DIR_MODE }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await writeAtomic(file, formatCodeCache(key, data), { mode: STATE_FILE_MODE });
  for (const entry of await readdir(dirname(file))) {
    if (entry === basename(file) || !isSiblingCache(entry, name)) continue;
    const path = join(dirname(file), entry);
    const info = await lstat(path).catch(() => undefined);
    if (info?.isFile() && now - info.mtimeMs > SIBLING_CACHE_DAYS * 86_400_000) {
      await unlink(path).catch(() => undefined);
    }
  }
  await dropOldCompileEntries(stateDir, now);
}

/**
 * Node's compile cache (code-cache/node/<Node release and user>/<entry>, code-cache.ts)
 * keeps an entry per module file, and each build's chunks are files of new names: entries not
 * written for SIBLING_CACHE_DAYS go, and a release's dir they leave empty. A hot cache is written
 * when a build is new, which is when the last one's entries stop being read. An entry still in use
 * but older is compiled and written again on its next run.
 */
export async function dropOldCompileEntries(stateDir: string, now = Date.now()): Promise<void> {
  const root = nodeCompileCacheDir(stateDir);
  const releases = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const release of releases) {
    if (!release.isDirectory()) continue;
    const dir = join(root, release.name);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    // A dir with nothing in it is one Node made for this run, which writes its entries at exit.
    let left = entries.length;
    if (left === 0) continue;
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const path = join(dir, entry.name);
      const info = await lstat(path).catch(() => undefined);
      if (info?.isFile() && now - info.mtimeMs > SIBLING_CACHE_DAYS * 86_400_000) {
        if (
          await unlink(path).then(
            () => true,
            () => false,
          )
        )
          left -= 1;
      }
    }
    if (left === 0) await rmdir(dir).catch(() => undefined);
  }
}
