// What a warm supervisor (exec-warm.ts) does while it waits for a claim: the work every job's first
// steps would otherwise do on the caller's clock. The lock module is loaded on the first lock
// (lock.ts); in a supervisor that has just started, that came after the claim, between the caller's
// job and its answer or its end. (A job's files are judged by hand checks, which build nothing.)
// Nothing here touches the state dir: the lock taken is on a file in a private directory of its
// own, removed. Node's stderr stream is made here too (stderrMade says why). Last, unless a claim
// came meanwhile, the young generation is collected, so that no collection of the start-up's
// garbage falls inside the job (exec-young-gc.ts).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withLock } from '../../state/engine/lock.js';
import { collectYoungGeneration } from './exec-young-gc.js';

/**
 * Loads the lock module by taking one lock and makes stderr's stream, then empties the young
 * generation unless `claimed()`;
 * never throws (a warm-up that fails leaves that work to the job, as before). node:child_process is
 * not loaded: the job's spawn goes through the process handle (exec-spawn.ts).
 */
export async function warmUp(claimed: () => boolean = () => false): Promise<void> {
  let dir: string | undefined;
  try {
    dir = await mkdtemp(join(tmpdir(), 'dogsled-warm-'));
    await withLock(join(dir, 'warm'), () => undefined);
  } catch {
    // Nothing to warm up with: the job's first lock loads the module instead.
  } finally {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
  stderrMade();
  // A claim already waiting would wait for it too: then the job meets the collection as before.
  if (claimed()) return;
  try {
    collectYoungGeneration();
  } catch {
    // Only a head start: the job meets the collection as before.
  }
}

/**
 * Makes process.stderr, which Node makes on first use: net's Socket#_destroy compares the socket it
 * destroys with it, so the first socket a warm supervisor destroyed (serve's pipe, as the claim came)
 * made it then, on the job's clock: internal/fs/sync_write_stream for a file or /dev/null (serve's
 * log), a net.Socket for a pipe, some 1.8 M instructions. Nothing is written to it here.
 */
export function stderrMade(): boolean {
  try {
    return process.stderr !== undefined;
  } catch {
    // No stderr to make (a descriptor Node cannot use): the destroy meets the same, as before.
    return false;
  }
}
