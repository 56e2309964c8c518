// Writes a hot bundle's code cache (code-cache.ts) after a run that had none. Built as an entry of
// its own (dist/code-cache-write.mjs): the start-up path that reads caches never loads the writer.

import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeAtomic } from './atomic-write.js';
import { formatCodeCache } from './code-cache.js';
import { STATE_DIR_MODE, STATE_FILE_MODE } from './paths.js';

/**
 * Replaces the cache atomically (0600, in a 0700 dir), only inside a state dir that exists: a
 * command that wrote no state of its own leaves none behind for its cache either.
 */
export async function writeCodeCache(
  stateDir: string,
  file: string,
  key: string,
  data: Buffer,
): Promise<void> {
  if (!(await stat(stateDir)).isDirectory()) return;
  await mkdir(dirname(file), { mode: STATE_DIR_MODE }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await writeAtomic(file, formatCodeCache(key, data), { mode: STATE_FILE_MODE });
}
