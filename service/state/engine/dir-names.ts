// A state directory's listing, for the service's readers that list one every tick (jobs/,
// tickets/, inbox/, todo-lines/). Synchronous, like the state-file reads (regular-file.ts): one
// getdents of a local directory takes microseconds where an async readdir was a thread-pool round
// trip, and a directory that does not exist yet (a fresh host has no tickets/ nor inbox/) is told
// by a stat instead of a rejected call and its ENOENT error object, every tick.

import { readdirSync } from 'node:fs';
import { statOrAbsent } from './regular-file.js';

/**
 * The names in `dir`, or undefined when nothing is there. Any other failure throws readdir's own
 * error (ENOTDIR, EACCES...), and so does a directory removed between the stat and the listing
 * (ENOENT), which the callers already read as missing.
 */
export function dirNames(dir: string): string[] | undefined {
  if (statOrAbsent(dir) === undefined) return undefined;
  return readdirSync(dir);
}
